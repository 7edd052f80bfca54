package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/assay-lang/assay/base/stats"
)

// ArmFigure is one figure of one arm over its seeds: the finished runs of
// one plan and variant with the same overrides but for the seed. SD and
// the interval are absent (Note says "n=1, no interval") for a figure of
// one seed. The difference is this arm's mean less the reference arm's
// (VersusArm, the first arm compared), with Welch's 95% t interval when
// both arms have two seeds or more; Differs marks a difference only when
// that interval excludes zero.
type ArmFigure struct {
	Arm      string   `json:"arm"`
	Figure   string   `json:"figure"`
	N        int      `json:"n"`
	Mean     float64  `json:"mean"`
	SD       *float64 `json:"sd,omitempty"`
	Low      *float64 `json:"ci95_low,omitempty"`
	High     *float64 `json:"ci95_high,omitempty"`
	Note     string   `json:"note,omitempty"`
	Versus   string   `json:"vs_arm,omitempty"`
	Diff     *float64 `json:"diff,omitempty"`
	DiffLow  *float64 `json:"diff_ci95_low,omitempty"`
	DiffHigh *float64 `json:"diff_ci95_high,omitempty"`
	Differs  bool     `json:"differs"`
	// Values are the figure of each seed that measured it, in the order
	// the arm's runs come (what a group report plots beside the mean).
	Values []float64 `json:"values"`
}

// ArmFigures lists the figures the arms are summarized by: the name of the
// row's JSON field, and how a row gives it (nil: not measured).
var ArmFigures = []struct {
	Name string
	Get  func(*Row) *float64
}{
	{"real_runs", func(r *Row) *float64 { return ptr(float64(r.RealRuns)) }},
	{"gpu_hours", func(r *Row) *float64 { return ptr(r.GPUHours) }},
	{"usd", func(r *Row) *float64 { return ptr(r.USD) }},
	{"best_real_gain", func(r *Row) *float64 { return r.BestGain }},
	{"avg_at_k", func(r *Row) *float64 { return r.Avg }},
	{"best_at_k", func(r *Row) *float64 { return r.Best }},
	{"calibration_mae", func(r *Row) *float64 { return r.CalibrationMAE }},
	{"routed_share", func(r *Row) *float64 { return r.RoutedShare }},
}

// arm is the finished runs of one arm, in the order compared.
type arm struct {
	key, label string
	rows       []*Row
}

// Arms groups the finished rows into arms (plan, variant and overrides
// alike but for the seed), in the order their first run comes, and
// summarizes every figure some run of the arm measured. A run that has not
// finished is left out: its figures are not final.
func Arms(rows []*Row) []*ArmFigure {
	arms := groupArms(rows)
	var out []*ArmFigure
	var ref map[string]stats.Summary
	for i, a := range arms {
		sums := map[string]stats.Summary{}
		for _, f := range ArmFigures {
			var xs []float64
			for _, r := range a.rows {
				if x := f.Get(r); x != nil {
					xs = append(xs, *x)
				}
			}
			if len(xs) == 0 {
				continue
			}
			s := stats.Summarize(xs)
			sums[f.Name] = s
			af := &ArmFigure{Arm: a.label, Figure: f.Name, N: s.N, Mean: s.Mean, Values: xs}
			if s.Interval() {
				af.SD, af.Low, af.High = ptr(s.SD), ptr(s.Low), ptr(s.High)
			} else {
				af.Note = stats.NoInterval
			}
			if r, ok := ref[f.Name]; ok && i > 0 {
				af.Versus = arms[0].label
				d, ok := stats.Welch(r, s)
				af.Diff = ptr(d.Diff)
				if ok {
					af.DiffLow, af.DiffHigh, af.Differs = ptr(d.Low), ptr(d.High), d.Differs()
				}
			}
			out = append(out, af)
		}
		if i == 0 {
			ref = sums
		}
	}
	return out
}

// groupArms puts the finished rows into arms. An arm is named by its
// variant; by its variant and overrides where two arms share a variant
// name, and by its plan too where they still do.
func groupArms(rows []*Row) []*arm {
	var arms []*arm
	byKey := map[string]*arm{}
	for _, r := range rows {
		if r.State != "finished" {
			continue
		}
		ov := armOverrides(r)
		key := r.Plan + "\x00" + r.Variant + "\x00" + ov
		a := byKey[key]
		if a == nil {
			a = &arm{key: key, label: r.Variant}
			byKey[key] = a
			arms = append(arms, a)
		}
		a.rows = append(a.rows, r)
	}
	for _, name := range []func(a *arm) string{
		func(a *arm) string { return a.label + " (" + armOverrides(a.rows[0]) + ")" },
		func(a *arm) string { return a.rows[0].Plan + ": " + a.label },
	} {
		seen := map[string]int{}
		for _, a := range arms {
			seen[a.label]++
		}
		for _, a := range arms {
			if seen[a.label] > 1 {
				a.label = name(a)
			}
		}
	}
	return arms
}

// armOverrides is the row's overrides but the seed, as PATH=VALUE.
func armOverrides(r *Row) string {
	keys := make([]string, 0, len(r.Overrides))
	for k := range r.Overrides {
		if k != "seed" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, r.Overrides[k])
	}
	return strings.Join(parts, " ")
}
