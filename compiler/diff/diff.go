package diff

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// Options configure a diff.
type Options struct {
	Compile compiler.Options
	// OldName and NewName label the two sides in output, e.g. file names.
	OldName, NewName string
	// FailAbove and WarnAbove are thresholds on estimate deltas.
	FailAbove, WarnAbove []Threshold
}

// Change kinds of a field.
const (
	Changed = "changed"
	Added   = "added"
	Removed = "removed"
)

// FieldChange is one difference of the spec trees. Old is nil for an added
// field or block, New for a removed one.
type FieldChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	Old  any    `json:"old,omitempty"`
	New  any    `json:"new,omitempty"`
}

// Delta is how one estimate figure moved. Delta and Relative are of the
// expected value; Relative is nil when the old value is zero.
type Delta struct {
	Metric   string     `json:"metric"`
	Old      plan.Count `json:"old"`
	New      plan.Count `json:"new"`
	Delta    float64    `json:"delta"`
	Relative *float64   `json:"relative,omitempty"`
}

// Changed reports whether any of low, expected or high moved.
func (d Delta) Changed() bool {
	return !near(d.Old.Low, d.New.Low) || !near(d.Old.Expected, d.New.Expected) || !near(d.Old.High, d.New.High)
}

// Crossing is a delta beyond a threshold.
type Crossing struct {
	Threshold string   `json:"threshold"`
	Metric    string   `json:"metric"`
	Delta     float64  `json:"delta"`
	Relative  *float64 `json:"relative,omitempty"`
}

// Result is a semantic diff.
type Result struct {
	Old     string `json:"old"`
	New     string `json:"new"`
	OldHash string `json:"old_hash"`
	NewHash string `json:"new_hash"`
	// Changed is false when the trees and the plan hashes are equal.
	Changed bool          `json:"changed"`
	Fields  []FieldChange `json:"fields"`
	// Totals are the estimate totals, always in the same order.
	Totals []Delta `json:"totals"`
	// Roles are LLM calls per role (roles.NAME.calls); Loops are the steps
	// each loop gets (loops.NAME.steps), which is what a budget buys.
	Roles []Delta `json:"roles"`
	Loops []Delta `json:"loops"`
	// Assumptions are the figures the estimates take as given
	// (assumptions.NAME, see estimate.Assumption): a changed routed share,
	// build-failure share, price or run length shows here.
	Assumptions []Delta    `json:"assumptions"`
	Failed      []Crossing `json:"failed,omitempty"`
	Warned      []Crossing `json:"warned,omitempty"`
}

// Diff compiles and estimates both specs and compares them. Compile errors
// of either side are returned with a nil result.
func Diff(old, new *spec.Spec, opts Options) (*Result, diag.Diagnostics) {
	op, ds := compiler.Compile(old, opts.Compile)
	np, nds := compiler.Compile(new, opts.Compile)
	ds = ds.Append(nds)
	if ds.HasErrors() || op == nil || np == nil {
		return nil, ds
	}
	r := &Result{Old: opts.OldName, New: opts.NewName, OldHash: op.Hash, NewHash: np.Hash, Fields: []FieldChange{}}
	compareTrees("", spec.Tree(old), spec.Tree(new), &r.Fields)
	r.Fields = append(r.Fields, promptChanges(op, np)...)
	r.Changed = len(r.Fields) > 0 || op.Hash != np.Hash
	oe, ne := estimate.Estimate(op), estimate.Estimate(np)
	r.Totals = totals(&oe.Totals, &ne.Totals)
	r.Roles = keyed("roles", "calls", roleCalls(oe), roleCalls(ne))
	r.Loops = keyed("loops", "steps", loopSteps(oe), loopSteps(ne))
	r.Assumptions = assumed(assumptions(oe), assumptions(ne))
	all := r.Deltas()
	r.Failed = cross(opts.FailAbove, all)
	r.Warned = cross(opts.WarnAbove, all)
	return r, ds
}

// Deltas returns every delta: totals, then roles, then loops.
func (r *Result) Deltas() []Delta {
	out := append([]Delta(nil), r.Totals...)
	out = append(out, r.Roles...)
	out = append(out, r.Loops...)
	return append(out, r.Assumptions...)
}

// assumptions are a report's assumptions by name: its only variant's, or
// its first variant's when it sweeps (the axes show as field changes).
func assumptions(r *estimate.Report) map[string]plan.Count {
	as := r.Assumptions
	if len(r.Variants) > 0 {
		as = r.Variants[0].Assumptions
	}
	m := map[string]plan.Count{}
	for _, a := range as {
		m[a.Name] = a.Value
	}
	return m
}

// assumed compares assumptions; one that only one side makes compares with
// zero, as a role or a loop does.
func assumed(o, n map[string]plan.Count) []Delta {
	out := keyed("assumptions", "", o, n)
	for i := range out {
		out[i].Metric = strings.TrimSuffix(out[i].Metric, ".")
	}
	return out
}

// Total returns the delta of a total by metric name.
func (r *Result) Total(metric string) (Delta, bool) {
	for _, d := range r.Deltas() {
		if d.Metric == metric {
			return d, true
		}
	}
	return Delta{}, false
}

// TotalMetrics are the metric names of estimate totals, in report order.
var TotalMetrics = []string{"real_runs", "gpu_hours", "usd", "usd_gpu", "usd_llm", "llm_calls", "llm_tokens", "wall_hours"}

func totals(o, n *estimate.Totals) []Delta {
	get := func(t *estimate.Totals) []plan.Count {
		return []plan.Count{t.RealRuns, t.GPUHours, t.USD, t.USDGPU, t.USDLLM, t.LLMCalls, t.LLMTokens, t.WallHours}
	}
	oc, nc := get(o), get(n)
	out := make([]Delta, len(TotalMetrics))
	for i, m := range TotalMetrics {
		out[i] = delta(m, oc[i], nc[i])
	}
	return out
}

func roleCalls(r *estimate.Report) map[string]plan.Count {
	m := map[string]plan.Count{}
	for k, v := range r.Roles {
		m[k] = v.Calls
	}
	return m
}

func loopSteps(r *estimate.Report) map[string]plan.Count {
	m := map[string]plan.Count{}
	for k, v := range r.Loops {
		m[k] = v.Steps
	}
	return m
}

// keyed compares per-name figures; a name on one side only compares with zero.
func keyed(prefix, field string, o, n map[string]plan.Count) []Delta {
	names := map[string]bool{}
	for k := range o {
		names[k] = true
	}
	for k := range n {
		names[k] = true
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Delta, 0, len(keys))
	for _, k := range keys {
		out = append(out, delta(prefix+"."+k+"."+field, o[k], n[k]))
	}
	return out
}

func delta(metric string, o, n plan.Count) Delta {
	d := Delta{Metric: metric, Old: o, New: n, Delta: round(n.Expected - o.Expected)}
	if o.Expected != 0 {
		rel := round((n.Expected - o.Expected) / math.Abs(o.Expected))
		d.Relative = &rel
	}
	return d
}

// round drops floating-point noise below a millionth.
func round(x float64) float64 { return math.Round(x*1e9) / 1e9 }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// compareTrees walks two spec trees and records their differences by path.
// A block present on one side only is one change at its path, not one per
// field inside it.
func compareTrees(prefix string, o, n map[string]any, out *[]FieldChange) {
	keys := map[string]bool{}
	for k := range o {
		keys[k] = true
	}
	for k := range n {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		ov, inOld := o[k]
		nv, inNew := n[k]
		switch {
		case !inOld && isLabels(path):
			compareTrees(path, map[string]any{}, nv.(map[string]any), out)
		case !inNew && isLabels(path):
			compareTrees(path, ov.(map[string]any), map[string]any{}, out)
		case !inOld:
			*out = append(*out, FieldChange{Path: path, Kind: Added, New: nv})
		case !inNew:
			*out = append(*out, FieldChange{Path: path, Kind: Removed, Old: ov})
		default:
			om, oIsMap := ov.(map[string]any)
			nm, nIsMap := nv.(map[string]any)
			if oIsMap && nIsMap && isBlock(path) {
				compareTrees(path, om, nm, out)
			} else if !reflect.DeepEqual(ov, nv) {
				*out = append(*out, FieldChange{Path: path, Kind: Changed, Old: ov, New: nv})
			}
		}
	}
}

// isBlock reports whether path names a block or a labelled block (whose
// fields are compared one by one) rather than a map-valued attribute such
// as prices.gpu_hourly (compared whole).
func isBlock(path string) bool {
	parts := strings.Split(path, ".")
	b := spec.Describe()
	for i := 0; i < len(parts); i++ {
		f := b.Field(parts[i])
		if f == nil || f.Kind == spec.Attr {
			return false
		}
		if f.Kind == spec.Blocks {
			if i == len(parts)-1 {
				return true // the struct of labels
			}
			i++
		}
		b = f.Block
	}
	return true
}

// isLabels reports whether path names the labels of a repeated block
// (e.g. "critic"), whose entries are reported one by one.
func isLabels(path string) bool {
	if strings.Contains(path, ".") {
		return false
	}
	f := spec.Describe().Field(path)
	return f != nil && f.Kind == spec.Blocks
}

// FormatValue renders a tree value the way specs write it.
func FormatValue(x any) string {
	switch v := x.(type) {
	case nil:
		return "(unset)"
	case string:
		return fmt.Sprintf("%q", v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return fmt.Sprint(v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = FormatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " = " + FormatValue(v[k])
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return fmt.Sprint(x)
}
