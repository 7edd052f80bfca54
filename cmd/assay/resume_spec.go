package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// specChangeNote says, for a run whose spec now compiles (with the
// run's recorded settings) to another plan than the one the run began
// with, that a resume keeps the run's plan, where the spec's plan differs
// first, and the command that starts a new run of the spec as it is now
// with this run's answers (--replay), which stops where the answers end. It is "" for an unchanged spec, a
// saved plan's run (its plan is fixed by design), and a spec that no
// longer compiles as the run's did.
func specChangeNote(st *runtime.Status, dir string) string {
	spec := st.Meta["spec"]
	if spec == "" || st.Meta["saved_plan"] != "" || st.Hash == "" {
		return ""
	}
	f := &specFlags{}
	var args []string
	if pv := st.Provenance; pv != nil {
		for _, o := range pv.Overrides {
			switch {
			case strings.HasPrefix(o, "--set="):
				f.sets = append(f.sets, strings.TrimPrefix(o, "--set="))
			case strings.HasPrefix(o, "-var="):
				f.vars = append(f.vars, strings.TrimPrefix(o, "-var="))
			case strings.HasPrefix(o, "-var-file="):
				f.varFiles = append(f.varFiles, strings.TrimPrefix(o, "-var-file="))
			default:
				return ""
			}
			args = append(args, termSafe(o))
		}
	}
	now, diags, _ := compileSpec(spec, f)
	if now == nil || diags.HasErrors() || now.VariantHash(st.Variant) == st.Hash {
		return ""
	}
	where := ""
	if was, err := savedRunPlan(dir, st.ID); err == nil {
		if path, a, b, ok := variantDifference(was, now, st.Variant); ok {
			where = fmt.Sprintf("; it differs first at %s (the run's %s, the spec's now %s)", path, a, b)
		}
	}
	cmd := []string{"assay", "run"}
	if dir != runtime.DefaultDir {
		cmd = append(cmd, "--dir", termSafe(dir))
	}
	cmd = append(cmd, "--replay", st.ID)
	cmd = append(append(cmd, args...), termSafe(fromWorkDir(spec)))
	return fmt.Sprintf("the spec %s changed since run %s began%s.\n"+
		"A resume keeps the run's plan, so the change does not apply to it. To run the spec as it is now, start a new run (assay run SPEC); "+
		"this one takes run %s's answers from its journal, without an LLM call, and stops at the first call whose request the change alters or that run %s did not make, "+
		"which shows how far the change reaches at no LLM cost (docs/replay.md):\n  %s",
		termSafe(fromWorkDir(spec)), st.ID, where, st.ID, st.ID, strings.Join(cmd, " "))
}

// savedRunPlan reads the plan a run began with.
func savedRunPlan(dir, id string) (*plan.Plan, error) {
	b, err := os.ReadFile(filepath.Join(runtime.RunDir(dir, id), runtime.PlanFile))
	if err != nil {
		return nil, err
	}
	p := new(plan.Plan)
	return p, json.Unmarshal(b, p)
}

// variantDifference is where variant's plan first differs between was and
// now, source ranges aside (a moved block is no change of meaning).
func variantDifference(was, now *plan.Plan, variant string) (path, a, b string, ok bool) {
	tree := func(p *plan.Plan) any {
		v, err := p.Variant(variant)
		if err != nil {
			return nil
		}
		raw, _ := json.Marshal(v)
		var t any
		_ = json.Unmarshal(raw, &t)
		return withoutSources(t)
	}
	wt := tree(was)
	path, x, y, ok := jsonDiff("variant", wt, tree(now))
	return assumptionPath(wt, path), short(x), short(y), ok
}

// assumptionPath names a difference in the plan's assumptions, which
// every figure the spec sets is one of, by the assumption's own name
// (role.proposer.tokens_in, value.expected) rather than its index.
func assumptionPath(t any, path string) string {
	rest, ok := strings.CutPrefix(path, "variant.assumptions[")
	if !ok {
		return path
	}
	n, rest, ok := strings.Cut(rest, "]")
	i, err := strconv.Atoi(n)
	v, _ := t.(map[string]any)
	as, _ := v["assumptions"].([]any)
	if !ok || err != nil || i < 0 || i >= len(as) {
		return path
	}
	a, _ := as[i].(map[string]any)
	name, _ := a["name"].(string)
	if name == "" {
		return path
	}
	if rest = strings.TrimPrefix(rest, "."); rest != "" {
		return name + ", " + rest
	}
	return name
}

// withoutSources drops every "source" range of a decoded plan tree.
func withoutSources(t any) any {
	switch v := t.(type) {
	case map[string]any:
		for k, c := range v {
			if m, isMap := c.(map[string]any); isMap && k == "source" && m["filename"] != nil && m["start"] != nil {
				delete(v, k)
				continue
			}
			v[k] = withoutSources(c)
		}
	case []any:
		for i, c := range v {
			v[i] = withoutSources(c)
		}
	}
	return t
}
