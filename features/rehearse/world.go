package rehearse

import (
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins/sim"
)

// WorldFile is what a world file sets; what it leaves out takes the
// defaults that keep to the plan's assumptions.
type WorldFile struct {
	// Envs by environment name; "*" sets every environment.
	Envs map[string]*EnvSettings
	// Roles by role name; "*" sets every role.
	Roles map[string]*RoleSettings
}

// Setting is one distribution and where the world file states it.
type Setting struct {
	Dist  sim.Dist
	Range diag.Range
}

// EnvSettings set one environment.
type EnvSettings struct {
	// Gain is a proposal's gain in units of its task's scale, drawn per
	// (task, proposal).
	Gain *Setting
	// Hours is the hours of one run, drawn per run.
	Hours *Setting
	// Infeasible and Failed are shares of runs, drawn once per rehearsal:
	// runs that crash, and attempts the infrastructure fails.
	Infeasible, Failed *Setting
	Range              diag.Range
}

// RoleSettings set one role; each share is drawn once per rehearsal.
type RoleSettings struct {
	BuildFailures *Setting // builder roles
	Accuracy      *Setting // critic roles: right confident verdicts
	Unsure        *Setting // critic roles: candidates whose votes split
	Noise         *Setting // world model roles: error, in task scales
	Range         diag.Range
}

const codeWorld = "E_WORLD"

// maxWorldValue bounds the size of a world file's figures: a gain of a
// million task scales, or a run of a million hours, is already no world a
// rehearsal means, and a rehearsal's arithmetic on its draws (hours in
// seconds, gains times scales, their squares) stays finite below it.
const maxWorldValue = 1e6

// Codes documents the world file's codes.
var Codes = []diag.Code{
	{Code: codeWorld, Meaning: "a rehearsal's world file (assay rehearse --world) has a syntax error, an unknown block or setting, a distribution outside its range, or names an environment or role the plan lacks"},
}

// distFuncs are the world file's distribution functions.
var distFuncs = map[string]function.Function{
	"normal":  distFunc("normal", "mean", "sd"),
	"uniform": distFunc("uniform", "low", "high"),
	"percent": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "x", Type: cty.Number}},
		Type:   function.StaticReturnType(cty.Number),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			f, _ := args[0].AsBigFloat().Float64()
			return cty.NumberFloatVal(f / 100), nil
		},
	}),
}

var distType = cty.Object(map[string]cty.Type{"kind": cty.String, "a": cty.Number, "b": cty.Number})

func distFunc(kind, a, b string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: a, Type: cty.Number}, {Name: b, Type: cty.Number}},
		Type:   function.StaticReturnType(distType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.ObjectVal(map[string]cty.Value{"kind": cty.StringVal(kind), "a": args[0], "b": args[1]}), nil
		},
	})
}

var worldSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "environment", LabelNames: []string{"name"}},
	{Type: "role", LabelNames: []string{"name"}},
}}

var envSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "gain"}, {Name: "hours"}, {Name: "infeasible"}, {Name: "failed"}}}

var roleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "build_failures"}, {Name: "accuracy"}, {Name: "unsure"}, {Name: "noise"}}}

// LoadWorld reads a world file. It is read as spec files are: a regular
// file of at most load.MaxSourceBytes, so /dev/zero or a named pipe is
// refused rather than read without end.
func LoadWorld(path string) (*WorldFile, diag.Diagnostics) {
	b, err := load.ReadSource(path)
	if err != nil {
		return nil, diag.Diagnostics{diag.Errorf(codeWorld, diag.Range{Filename: path}, "cannot read the world file: %v", err)}
	}
	return ParseWorld(path, b)
}

// ParseWorld parses a world file's source. It never panics on bad input.
func ParseWorld(filename string, src []byte) (*WorldFile, diag.Diagnostics) {
	w := &WorldFile{Envs: map[string]*EnvSettings{}, Roles: map[string]*RoleSettings{}}
	f, hds := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if hds.HasErrors() {
		return nil, fromHCL(hds)
	}
	content, hds := f.Body.Content(worldSchema)
	ds := fromHCL(hds)
	ctx := &hcl.EvalContext{Functions: distFuncs}
	for _, blk := range content.Blocks {
		name := blk.Labels[0]
		rng := toRange(blk.LabelRanges[0])
		switch blk.Type {
		case "environment":
			if w.Envs[name] != nil {
				ds = ds.Append(diag.Errorf(codeWorld, rng, "environment %q is set twice", name).WithDetail("merge the two blocks into one"))
				continue
			}
			c, hds := blk.Body.Content(envSchema)
			ds = append(ds, fromHCL(hds)...)
			e := &EnvSettings{Range: rng}
			e.Gain, ds = setting(ctx, c.Attributes["gain"], false, ds)
			e.Hours, ds = setting(ctx, c.Attributes["hours"], false, ds)
			e.Infeasible, ds = setting(ctx, c.Attributes["infeasible"], true, ds)
			e.Failed, ds = setting(ctx, c.Attributes["failed"], true, ds)
			if e.Hours != nil && e.Hours.Dist.Low() < 0 && e.Hours.Dist.Kind != "normal" {
				ds = ds.Append(diag.Errorf(codeWorld, e.Hours.Range, "hours %s can be negative", e.Hours.Dist).WithDetail("give hours per run of 0 or more"))
			}
			w.Envs[name] = e
		case "role":
			if w.Roles[name] != nil {
				ds = ds.Append(diag.Errorf(codeWorld, rng, "role %q is set twice", name).WithDetail("merge the two blocks into one"))
				continue
			}
			c, hds := blk.Body.Content(roleSchema)
			ds = append(ds, fromHCL(hds)...)
			r := &RoleSettings{Range: rng}
			r.BuildFailures, ds = setting(ctx, c.Attributes["build_failures"], true, ds)
			r.Accuracy, ds = setting(ctx, c.Attributes["accuracy"], true, ds)
			r.Unsure, ds = setting(ctx, c.Attributes["unsure"], true, ds)
			r.Noise, ds = setting(ctx, c.Attributes["noise"], false, ds)
			if r.Noise != nil && r.Noise.Dist.Low() < 0 && r.Noise.Dist.Kind != "normal" {
				ds = ds.Append(diag.Errorf(codeWorld, r.Noise.Range, "noise %s can be negative", r.Noise.Dist).WithDetail("give a standard deviation of 0 or more"))
			}
			w.Roles[name] = r
		}
	}
	ds.Sort()
	return w, ds
}

// setting evaluates one attribute: a number (fixed) or normal(...) /
// uniform(...). A share must lie in [0, 1] (a normal share is refused:
// its tails leave the range).
func setting(ctx *hcl.EvalContext, a *hcl.Attribute, share bool, ds diag.Diagnostics) (*Setting, diag.Diagnostics) {
	if a == nil {
		return nil, ds
	}
	rng := toRange(a.Expr.Range())
	v, hds := a.Expr.Value(ctx)
	if hds.HasErrors() {
		return nil, append(ds, fromHCL(hds)...)
	}
	bad := func(format string, args ...any) (*Setting, diag.Diagnostics) {
		return nil, ds.Append(diag.Errorf(codeWorld, rng, "%s: "+format, append([]any{a.Name}, args...)...).
			WithDetail("write a number, uniform(low, high) or normal(mean, sd)"))
	}
	if !v.IsWhollyKnown() || v.IsNull() {
		return bad("no value")
	}
	var d sim.Dist
	switch {
	case v.Type() == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		d = sim.Fixed(f)
	case v.Type().Equals(distType):
		d.Kind = v.GetAttr("kind").AsString()
		d.A, _ = v.GetAttr("a").AsBigFloat().Float64()
		d.B, _ = v.GetAttr("b").AsBigFloat().Float64()
	default:
		return bad("a %s is not a distribution", v.Type().FriendlyName())
	}
	if err := d.Validate(); err != nil {
		return bad("%v", err)
	}
	if lo, hi := d.Low(), d.High(); max(-lo, hi) > maxWorldValue {
		return bad("%s reaches %g; a world file's figures (gains in task scales, hours, noise) are at most %g in size, so that what a rehearsal computes from its draws stays finite", d, max(-lo, hi), maxWorldValue)
	}
	if share {
		if d.Kind == "normal" {
			return bad("a share cannot be normal; its tails leave [0, 1]")
		}
		if d.Low() < 0 || d.High() > 1 {
			return bad("%s leaves [0, 1]; a share is a fraction (percent(36.3) is 0.363)", d)
		}
	}
	return &Setting{Dist: d, Range: rng}, ds
}

// Check refuses settings for environments and roles the plan's variant
// does not have.
func (w *WorldFile) Check(v *plan.Variant) diag.Diagnostics {
	if w == nil {
		return nil
	}
	var ds diag.Diagnostics
	envs, roles := []string{"*"}, []string{"*"}
	for _, e := range v.Envs {
		envs = append(envs, e.Name)
	}
	for _, r := range v.Roles {
		roles = append(roles, r.Name)
	}
	for _, name := range sortedKeys(w.Envs) {
		if !slices.Contains(envs, name) {
			ds = ds.Append(diag.Errorf(codeWorld, w.Envs[name].Range, "the plan has no environment %q", name).WithDetail("%s", diag.DidYouMean(name, envs)))
		}
	}
	for _, name := range sortedKeys(w.Roles) {
		if !slices.Contains(roles, name) {
			ds = ds.Append(diag.Errorf(codeWorld, w.Roles[name].Range, "the plan has no role %q", name).WithDetail("%s", diag.DidYouMean(name, roles)))
		}
	}
	return ds
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func toRange(r hcl.Range) diag.Range {
	return diag.Range{Filename: r.Filename, Start: diag.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End: diag.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte}}
}

func fromHCL(hds hcl.Diagnostics) diag.Diagnostics {
	var ds diag.Diagnostics
	for _, h := range hds {
		d := &diag.Diagnostic{Severity: diag.Error, Code: codeWorld, Summary: h.Summary, Detail: h.Detail}
		if h.Severity == hcl.DiagWarning {
			d.Severity = diag.Warning
		}
		if h.Subject != nil {
			d.Range = toRange(*h.Subject)
		}
		ds = append(ds, d)
	}
	return ds
}

// orDefault returns s's distribution, or d when s is nil.
func orDefault(s *Setting, d sim.Dist) sim.Dist {
	if s == nil {
		return d
	}
	return s.Dist
}

func describe(d sim.Dist) string { return fmt.Sprint(d) }
