package compiler

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/load/loadtest"
	"github.com/assay-lang/assay/lang/spec"
)

// Every field of the schema either takes effect or is refused where it does
// not apply. TestEveryFieldIsLive walks spec.Describe() and, for every
// attribute, changes its value in every spec of specs/ (and base.hcl) that
// has the attribute's block: each change must change the plan hash or be
// refused with a positioned error, and at least one change must compile and
// change the hash. A field added to the schema is covered without a line
// here; only fields that need a hand-chosen value or proof are listed below.

// mutRange marks a value the test wrote, so a refusal of it has a position.
var mutRange = diag.Range{Filename: "mutation.hcl", Start: diag.Pos{Line: 1, Column: 10, Byte: 9}, End: diag.Pos{Line: 1, Column: 20, Byte: 19}}

// fieldValues are hand-chosen values for fields whose generic change (a
// string with a suffix, a doubled number) is never valid anywhere.
var fieldValues = map[string][]any{
	"prices.preset":                  {"cloud-2026"},
	"loop.*.preset":                  {"dapo", "grpo", "critic-grpo", "openevolve"},
	"environment.*.run_cost.gpu":     {"H100", "B200", "CPU"},
	"environment.*.task.*.baseline":  {0.5},
	"loop.*.new_parent":              {"all_improve"},
	"loop.*.feature_bins":            {map[string]float64{"complexity": 5, "mechanism": 4}, map[string]float64{"score": 8}},
	"loop.*.update.gpu":              {"H100", "B200", "CPU"},
	"loop.*.resample_rounds":         {1, 3},
	"loop.*.expected_dropped":        {0.3},
	"critic_training.*.sft.gpu":      {"H100", "B200"},
	"critic_training.*.grpo.gpu":     {"H100", "B200"},
	"critic_training.*.sft.gpus":     {4},
	"critic_training.*.grpo.gpus":    {4},
	"critic_training.*.grpo.balance": {[]string{"improve", "lose"}, []string{"lose", "tie", "improve"}, []string{"BigWin", "Lose"}},
	"loop.*.continual.gpu":           {"H100", "B200"},
	"loop.*.continual.gpus":          {4},
	"executor.slurm.poll_seconds":    {10.0},
	"loop.*.continual.scope":         {"loop"},
}

// refKinds names the block kind a reference field points at, for fields
// that some spec leaves unset (a set one says its kind itself).
var refKinds = map[string]string{
	"environment.*.trainer":   "plugin",
	"environment.*.benchmark": "plugin",
	"role.*.llm":              "plugin",
	"reward.*.predictor":      "role",
	"critic.*.role":           "role",
	"loop.*.reward":           "reward",
	"loop.*.screen":           "critic",
	"calibration.loop":        "loop",
	"loop.*.proposer":         "role",
	"loop.*.builder":          "role",
	"loop.*.summarizer":       "role",
	"loop.*.update.trainer":   "plugin",
	"records.proposer":        "role",
	"records.builder":         "role",
	"evaluation.proposer":     "role",
	"evaluation.builder":      "role",
	"evaluation.base":         "role",
	"evaluation.icl":          "role",
	"evaluation.predictor":    "role",
}

// refRoleKind names the role kind an unset role reference must point at,
// where the first role of the spec would be of another kind.
var refRoleKind = map[string]string{
	"evaluation.predictor": "rwm",
}

// alsoChange makes a change valid where the field alone cannot change: it
// runs on the changed spec after the field is set, given the field's path
// and new value.
var alsoChange = map[string]func(s *spec.Spec, path string, x any){
	// gpu_hours replaces hours.
	"environment.*.run_cost.gpu_hours": func(s *spec.Spec, path string, _ any) {
		unset(s, strings.TrimSuffix(path, "gpu_hours")+"hours")
	},
	// until_budget replaces steps, and steps replace it.
	"loop.*.until_budget": func(s *spec.Spec, path string, x any) {
		steps := strings.TrimSuffix(path, "until_budget") + "steps"
		if x.(bool) {
			unset(s, steps)
		} else if in, ok := findInst(s, steps); ok {
			setVal(1)(in.v)
		}
	},
	// A Slurm executor needs its slurm block; a local one has none.
	"executor.kind": func(s *spec.Spec, _ string, x any) {
		if x == "slurm" && s.Executor.Slurm == nil {
			s.Executor.Slurm = &spec.Slurm{Partition: spec.Of("gpu", mutRange), Range: mutRange}
		}
		if x == "local" {
			s.Executor.Slurm = nil
		}
	},
	// A block that names a clone of a role leaves the other blocks that
	// call a role of that kind ambiguous: they name the original.
	"loop.*.proposer":     nameOriginal("proposer"),
	"loop.*.builder":      nameOriginal("builder"),
	"loop.*.summarizer":   nameOriginal("summarizer"),
	"records.proposer":    nameOriginal("proposer"),
	"records.builder":     nameOriginal("builder"),
	"evaluation.proposer": nameOriginal("proposer"),
	"evaluation.builder":  nameOriginal("builder"),
	// An evolution loop that verifies routed ideas needs its critic's
	// routed share, which is refused where nothing routes.
	"loop.*.verify_routed": func(s *spec.Spec, path string, x any) {
		loop := strings.TrimSuffix(strings.TrimPrefix(path, "loop."), ".verify_routed")
		for _, l := range s.Loops {
			if l.Name != loop || !l.Screen.Set {
				continue
			}
			for _, c := range s.Critics {
				if c.Name == l.Screen.Name && x.(bool) && !c.ExpectedRouted.Set {
					c.ExpectedRouted = spec.Of(spec.One(0.3), mutRange)
				}
			}
		}
	},
	// expected_dropped prices the refill, which resample_rounds turns on.
	"loop.*.expected_dropped": func(s *spec.Spec, path string, _ any) {
		if in, ok := findInst(s, strings.TrimSuffix(path, "expected_dropped")+"resample_rounds"); ok {
			setVal(2)(in.v)
		}
	},
	"evaluation.base": nameOriginal("proposer"),
	// An icl arm needs its K, and K needs the arm.
	"evaluation.icl": func(s *spec.Spec, path string, x any) {
		nameOriginal("proposer")(s, path, x)
		if !s.Evaluation.ICLRecords.Set {
			s.Evaluation.ICLRecords = spec.Of(8, mutRange)
		}
	},
	"evaluation.icl_records": func(s *spec.Spec, _ string, _ any) {
		if !s.Evaluation.ICL.Set {
			s.Evaluation.ICL = spec.Ref{Kind: "role", Name: s.Evaluation.Proposer.Name, Set: true, Range: mutRange}
			if !s.Evaluation.ICL.Set || s.Evaluation.ICL.Name == "" {
				s.Evaluation.ICL.Name = "proposer"
			}
		}
	},
	// A real reward takes no predictor.
	"reward.*.source": func(s *spec.Spec, path string, x any) {
		if x == "real" {
			unset(s, strings.TrimSuffix(path, "source")+"predictor")
		}
	},
}

// nameOriginal returns an alsoChange for a role reference named field: the
// changed block points at a clone ("NAME_alt") of a role, so every other
// loop, records or evaluation block that leaves field unset names the
// original NAME, as a spec with two such roles must.
func nameOriginal(field string) func(s *spec.Spec, path string, x any) {
	return func(s *spec.Spec, path string, x any) {
		r, ok := x.(spec.Ref)
		if !ok {
			return
		}
		orig := spec.Ref{Kind: "role", Name: strings.TrimSuffix(r.Name, "_alt"), Set: true, Range: mutRange}
		fill := func(ref *spec.Ref) {
			if !ref.Set {
				*ref = orig
			}
		}
		for _, l := range s.Loops {
			switch field {
			case "proposer":
				fill(&l.Proposer)
			case "builder":
				fill(&l.Builder)
			case "summarizer":
				fill(&l.Summarizer)
			}
		}
		if rc := s.Records; rc != nil {
			if field == "proposer" {
				fill(&rc.Proposer)
			} else if field == "builder" {
				fill(&rc.Builder)
			}
		}
		if ev := s.Evaluation; ev != nil {
			if field == "proposer" {
				fill(&ev.Proposer)
			} else if field == "builder" {
				fill(&ev.Builder)
			}
		}
	}
}

// structural fields cannot change alone anywhere: every other field of the
// block depends on them. They are lowered, and a change alone is refused
// with a position, which the walk checks.
var structural = map[string]string{
	"plugin.*.kind": "every reference to the plugin names the kind it needs (trainer, llm, benchmark)",
	"loop.*.kind":   "the fields of one kind are missing or refused in a loop of the other",
}

// unset clears the attribute at path.
func unset(s *spec.Spec, path string) {
	if in, ok := findInst(s, path); ok {
		in.v.Set(reflect.Zero(in.v.Type()))
	}
}

// formulaBool lists the formula fields whose value is a condition; the
// others are numbers.
var formulaBool = map[string]bool{"critic.*.route": true}

// specialFields are proven by hand: the front end consumes them before the
// compiler sees the spec, or they document and must not change the plan.
var specialFields = map[string]func(t *testing.T){
	"extends":                proveExtends,
	"description":            proveDocOnly("description", `description = "`),
	"variable.*.description": proveDocOnly("variable.*.description", `description = "critic samples`),
	"variable.*.default":     proveVariableDefault,
	"variable.*.type":        proveVariableType,
	"reward.*.diversity.by":  proveSingleEnum("reward.*.diversity.by"),
	"sweep.mode":             proveSweepMode,
	"environment.*.suite":    proveSuite,
	// The flagships' suite is in source mode, refused without a checkout
	// the test has not got: proven on the suite by hand.
	"environment.*.suite_root":    proveSuiteRoot,
	"environment.*.suite_exclude": proveSuiteExclude,
	"variable.*.supply":           proveSupply,
	// No shipped spec names a benchmark plugin (MLS-Bench-Lite is a suite),
	// and a built-in's config refuses a generic change.
	"environment.*.benchmark":  proveBenchmark,
	"plugin.*.config":          proveBenchmark,
	"loop.*.continual.enabled": proveContinualEnabled,
}

// attrInst is one attribute of one block instance of a spec.
type attrInst struct {
	pattern string // loop.*.steps
	path    string // loop.policy.steps
	f       *spec.Field
	v       reflect.Value
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// walkSchema calls fn for every attribute of the schema with its pattern.
func walkSchema(b *spec.BlockSchema, pat string, fn func(string, *spec.Field)) {
	for _, f := range b.Fields {
		p := join(pat, f.Name)
		switch f.Kind {
		case spec.Attr:
			fn(p, f)
		case spec.Block:
			walkSchema(f.Block, p, fn)
		case spec.Blocks:
			walkSchema(f.Block, p+".*", fn)
		}
	}
}

// attrInsts lists every attribute of every block s has, set or not.
func attrInsts(s *spec.Spec) []attrInst {
	var out []attrInst
	var walk func(v reflect.Value, b *spec.BlockSchema, pat, path string)
	walk = func(v reflect.Value, b *spec.BlockSchema, pat, path string) {
		for _, f := range b.Fields {
			fv := spec.FieldValue(v, f)
			p, q := join(pat, f.Name), join(path, f.Name)
			switch f.Kind {
			case spec.Attr:
				out = append(out, attrInst{p, q, f, fv})
			case spec.Block:
				if !fv.IsNil() {
					walk(fv.Elem(), f.Block, p, q)
				}
			case spec.Blocks:
				for i := 0; i < fv.Len(); i++ {
					e := fv.Index(i).Elem()
					walk(e, f.Block, p+".*", q+"."+e.FieldByName("Name").String())
				}
			}
		}
	}
	walk(reflect.ValueOf(s).Elem(), spec.Describe(), "", "")
	return out
}

func findInst(s *spec.Spec, path string) (attrInst, bool) {
	for _, in := range attrInsts(s) {
		if in.path == path {
			return in, true
		}
	}
	return attrInst{}, false
}

// effective is s after presets and defaults: the values a change must
// differ from.
func effective(s *spec.Spec) *spec.Spec {
	c := &compilation{spec: cloneSpec(s)}
	applyPresets(c)
	applyDefaults(c)
	// Defaults that need the references settled: the roles each block
	// calls, and a critic's tie rule.
	resolve(c)
	bind(c)
	for _, cr := range c.spec.Critics {
		if !cr.Tie.Set {
			cr.Tie = spec.Val[string]{V: tieRule(cr), Set: true}
		}
	}
	return c.spec
}

// blocksOf returns the slice value of the labelled blocks of kind.
func blocksOf(s *spec.Spec, kind string) reflect.Value {
	f := spec.Describe().Field(kind)
	if f == nil || f.Kind != spec.Blocks {
		return reflect.Value{}
	}
	return spec.FieldValue(reflect.ValueOf(s).Elem(), f)
}

func firstBlock(s *spec.Spec, kind string) string {
	l := blocksOf(s, kind)
	if !l.IsValid() || l.Len() == 0 {
		return ""
	}
	return l.Index(0).Elem().FieldByName("Name").String()
}

// cloneBlock appends a copy of block kind.name called alt.
func cloneBlock(s *spec.Spec, kind, name, alt string) {
	l := blocksOf(s, kind)
	for i := 0; i < l.Len(); i++ {
		if l.Index(i).Elem().FieldByName("Name").String() == name {
			c := deepCopy(l.Index(i))
			c.Elem().FieldByName("Name").SetString(alt)
			// A role whose kind came from its name keeps that kind.
			if r, ok := c.Interface().(*spec.Role); ok && !r.Kind.Set && isRoleKind(name) {
				r.Kind = spec.Val[string]{V: name, Set: true, Range: r.NameRange}
			}
			l.Set(reflect.Append(l, c))
			return
		}
	}
}

// outcome compiles base and mut. "refused": mut has a positioned error (at
// the changed value, or anywhere when base compiles). "live": mut compiles
// and its hash differs; or base, prepared with a second block for a
// reference, was refused and mut is refused differently (the reference
// moved which block is unused). "equivalent": the hash is the same because
// the effective spec is (a preset or default gives the same value).
func outcome(base, mut *spec.Spec, baseHash, path string) (string, string) {
	var dsb diag.Diagnostics
	if baseHash == "" {
		var pb *plan.Plan
		if pb, dsb = Compile(base, Options{}); pb != nil {
			baseHash = pb.Hash
		}
	}
	pm, dsm := Compile(mut, Options{})
	for _, d := range dsm {
		if d.Severity == diag.Error && d.Range.Filename == mutRange.Filename {
			return "refused", d.Code
		}
	}
	if dsm.HasErrors() {
		if dsb.HasErrors() && dsb.Format(0) != dsm.Format(0) {
			return "live", ""
		}
		for _, d := range dsm {
			if d.Severity == diag.Error && d.Range.Valid() {
				return "refused", d.Code
			}
		}
		return "unpositioned", dsm.Format(0)
	}
	if dsb.HasErrors() || pm.Hash != baseHash {
		return "live", ""
	}
	tb, tm := spec.Tree(effective(base)), spec.Tree(effective(mut))
	if mergedAway[patternOf(path)] {
		dropPath(tb, path)
		dropPath(tm, path)
	}
	if reflect.DeepEqual(tb, tm) {
		return "equivalent", ""
	}
	return "silent", ""
}

// mergedAway fields act by filling other fields: a change that fills them
// with the same values is equivalent though the field itself differs.
var mergedAway = map[string]bool{"loop.*.preset": true, "prices.preset": true}

// patternOf turns loop.policy.preset into loop.*.preset.
func patternOf(path string) string {
	var out []string
	b := spec.Describe()
	parts := strings.Split(path, ".")
	for i := 0; i < len(parts); i++ {
		f := b.Field(parts[i])
		out = append(out, parts[i])
		if f == nil || f.Kind == spec.Attr {
			break
		}
		b = f.Block
		if f.Kind == spec.Blocks {
			out = append(out, "*")
			i++
		}
	}
	return strings.Join(out, ".")
}

// dropPath removes the attribute at path from a spec tree.
func dropPath(tree map[string]any, path string) {
	parts := strings.Split(path, ".")
	m := tree
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}

// swept lists the paths a spec's sweep sets: their own value is replaced by
// the axis's in every variant, so the axis is what takes effect.
func swept(s *spec.Spec) map[string]bool {
	out := map[string]bool{}
	if s.Sweep != nil {
		for _, ax := range s.Sweep.Axes {
			out[ax.Name] = true
		}
	}
	return out
}

func TestEveryFieldIsLive(t *testing.T) {
	bases := fieldBases(t)
	var patterns []string
	fields := map[string]*spec.Field{}
	walkSchema(spec.Describe(), "", func(p string, f *spec.Field) {
		patterns = append(patterns, p)
		fields[p] = f
	})
	sort.Strings(patterns)
	for _, p := range patterns {
		t.Run(p, func(t *testing.T) {
			t.Parallel() // the bases are only read: each change is made to a clone
			if prove, ok := specialFields[p]; ok && prove != nil {
				prove(t)
				return
			}
			live, tried := 0, 0
			var refused []string
			for _, b := range bases {
				seen := 0
				for _, in := range b.insts {
					// Two blocks of a kind per spec are enough: the rest
					// (lm2lm's eight environments) repeat them.
					if in.pattern != p || b.swept[in.path] || seen == 2 {
						continue
					}
					seen++
					var ev reflect.Value
					if e, ok := findInst(b.eff, in.path); ok {
						ev = e.v
					}
					for _, m := range mutations(t, b.s, in, ev) {
						// outcome only reads an unprepared base.
						base, mut := b.s, cloneSpec(b.s)
						if m.prep != nil {
							base = cloneSpec(b.s)
							m.prep(base)
							m.prep(mut)
						}
						mi, _ := findInst(mut, in.path)
						m.set(mi.v)
						if also := alsoChange[p]; also != nil {
							also(mut, in.path, m.x)
						}
						tried++
						baseHash := b.hash
						if m.prep != nil {
							baseHash = ""
						}
						got, detail := outcome(base, mut, baseHash, in.path)
						switch got {
						case "live":
							live++
						case "equivalent":
						case "refused":
							refused = append(refused, b.name+":"+detail)
						case "silent":
							t.Errorf("%s: %s = %s compiles to the same plan hash and is not refused: the field does nothing there", b.name, in.path, m.desc)
						default:
							t.Errorf("%s: %s = %s is refused without a position:\n%s", b.name, in.path, m.desc, detail)
						}
					}
				}
			}
			t.Logf("%d changes: %d live, %d refused %v", tried, live, len(refused), codesOf(refused))
			switch {
			case tried == 0:
				t.Errorf("no spec in specs/ (nor base.hcl) has a block with %s; add one, or a proof to specialFields", p)
			case live == 0 && structural[p] != "" && len(refused) == tried:
				// A change alone is refused everywhere, by design.
			case live == 0:
				t.Errorf("%s never changes the plan: %d changes, all refused (%s); give it effect, or a hand-chosen value in fieldValues", p, tried, strings.Join(refused, ", "))
			}
		})
	}
}

// codesOf counts the codes of "spec:CODE" refusals.
func codesOf(refused []string) map[string]int {
	out := map[string]int{}
	for _, r := range refused {
		out[r[strings.LastIndex(r, ":")+1:]]++
	}
	return out
}

// hashOfFile loads and compiles one spec file.
func hashOfFile(t *testing.T, path string) (string, diag.Diagnostics) {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		return "", ds
	}
	p, cds := Compile(s, Options{})
	if cds.HasErrors() {
		return "", cds
	}
	return p.Hash, nil
}

// withSource writes src as dir/name and returns the path.
func withSource(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func specSource(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "specs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// extends is merged by lang/load: which base a spec extends changes its plan.
// proveSuite: lang/load expands a suite into tasks before the compiler
// sees the spec, so another manifest (here one baseline differs) is
// another plan.
func proveSuite(t *testing.T) {
	dir := t.TempDir()
	laptop := specSource(t, filepath.Join("laptop", "suite.hcl"))
	manifest := specSource(t, filepath.Join("..", "examples", "suite", "suite.json"))
	withSource(t, dir, "a.json", manifest)
	withSource(t, dir, "b.json", strings.Replace(manifest, `"baseline": 0.24547`, `"baseline": 0.25`, 1))
	suite := `suite   = "../../examples/suite/suite.json"`
	if !strings.Contains(laptop, suite) {
		t.Fatalf("specs/laptop/suite.hcl has no %s", suite)
	}
	ha, ds := hashOfFile(t, withSource(t, dir, "a.hcl", strings.Replace(laptop, suite, `suite = "a.json"`, 1)))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	hb, ds := hashOfFile(t, withSource(t, dir, "b.hcl", strings.Replace(laptop, suite, `suite = "b.json"`, 1)))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	if ha == hb {
		t.Error("a suite with another baseline left the plan hash unchanged")
	}
}

func proveExtends(t *testing.T) {
	dir := t.TempDir()
	base := readBase(t)
	withSource(t, dir, "a.hcl", base)
	withSource(t, dir, "b.hcl", strings.Replace(base, "votes           = 15", "votes           = 17", 1))
	ha, ds := hashOfFile(t, withSource(t, dir, "child-a.hcl", "extends = \"a.hcl\"\nname = \"child\"\n"))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	hb, ds := hashOfFile(t, withSource(t, dir, "child-b.hcl", "extends = \"b.hcl\"\nname = \"child\"\n"))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	if ha == hb {
		t.Error("extending another base left the plan hash unchanged")
	}
}

// proveDocOnly: a documentation field must leave the plan hash alone, so a
// change of wording never reads as a change of experiment. The spec that
// carries it is found by the text it starts with.
func proveDocOnly(pattern, prefix string) func(t *testing.T) {
	return func(t *testing.T) {
		for _, name := range []string{"critic-evolve.hcl"} {
			src := specSource(t, name)
			if !strings.Contains(src, prefix) {
				t.Fatalf("%s has no %q to change", name, prefix)
			}
			dir := t.TempDir()
			loadtest.CopySpec(t, filepath.Join("..", "specs", name), dir) // and the bases it extends
			h1, ds := hashOfFile(t, withSource(t, dir, name, src))
			if ds != nil {
				t.Fatal(ds.Format(0))
			}
			h2, ds := hashOfFile(t, withSource(t, dir, "changed-"+name, strings.Replace(src, prefix, prefix+"Reworded: ", 1)))
			if ds != nil {
				t.Fatal(ds.Format(0))
			}
			if h1 != h2 {
				t.Errorf("%s is documentation, yet rewording it changed the plan hash; if it now has an effect, remove it from specialFields", pattern)
			}
		}
	}
}

// A variable's default is substituted by the front end wherever the spec
// refers to it.
func proveVariableDefault(t *testing.T) {
	src := specSource(t, "critic-evolve.hcl")
	dir := t.TempDir()
	loadtest.CopySpec(t, filepath.Join("..", "specs", "critic-evolve.hcl"), dir) // and the bases it extends
	h1, ds := hashOfFile(t, withSource(t, dir, "a.hcl", src))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	changed, _ := mutate(t, src, "default     = 16", "default     = 8")
	h2, ds := hashOfFile(t, withSource(t, dir, "b.hcl", changed))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	if h1 == h2 {
		t.Error("changing a variable's default left the plan hash unchanged")
	}
}

// A variable's type is a check: a default of another type is refused with a
// position.
func proveVariableType(t *testing.T) {
	src := specSource(t, "critic-evolve.hcl")
	changed, line := mutate(t, src, "type        = number", "type        = string")
	_, ds := hashOfFile(t, withSource(t, t.TempDir(), "a.hcl", changed))
	for _, d := range ds {
		if d.Severity == diag.Error && d.Range.Valid() {
			return
		}
	}
	t.Errorf("a variable of type string with a number default (line %d) was not refused with a position:\n%s", line, ds.Format(0))
}

// A field whose enum has one value cannot change; any other value is
// refused at the value.
func proveSingleEnum(pattern string) func(t *testing.T) {
	return func(t *testing.T) {
		for _, b := range fieldBases(t) {
			for _, in := range b.insts {
				if in.pattern != pattern {
					continue
				}
				if len(in.f.Enum) != 1 {
					t.Fatalf("%s has %d allowed values now: remove it from specialFields so the generic walk covers it", pattern, len(in.f.Enum))
				}
				mut := cloneSpec(b.s)
				mi, _ := findInst(mut, in.path)
				setVal(in.f.Enum[0] + "-other")(mi.v)
				_, ds := Compile(mut, Options{})
				for _, d := range ds {
					if d.Code == CodeEnum && d.Range == mutRange {
						return
					}
				}
				t.Fatalf("%s: another value is not refused with %s at the value:\n%s", in.path, CodeEnum, ds.Format(0))
			}
		}
		t.Errorf("no spec has %s", pattern)
	}
}

// sweep.mode: zip pairs the axes' values instead of crossing them, so two
// axes of two values give two variants instead of four. critic-sweep's own
// axes differ in length, where zip is refused.
func proveSweepMode(t *testing.T) {
	src := specSource(t, "critic-sweep.hcl")
	dir := t.TempDir()
	loadtest.CopySpec(t, filepath.Join("..", "specs", "critic-sweep.hcl"), dir) // and the bases it extends
	src, _ = mutate(t, src, "values = [4, 8, 16, 32]", "values = [4, 8]")
	h1, ds := hashOfFile(t, withSource(t, dir, "grid.hcl", src))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	zip, _ := mutate(t, src, `mode = "grid"`, `mode = "zip"`)
	h2, ds := hashOfFile(t, withSource(t, dir, "zip.hcl", zip))
	if ds != nil {
		t.Fatal(ds.Format(0))
	}
	if h1 == h2 {
		t.Error("zip and grid sweeps of the same axes gave the same plan hash")
	}
}

// Every algorithm a loop may name has its policy update, so lowering can
// fill the plan's loop from plan.Algorithms without a silent zero.
func TestEveryAlgorithmHasUpdate(t *testing.T) {
	f := spec.Describe().Field("loop").Block.Field("algorithm")
	for _, a := range f.Enum {
		if u, ok := plan.Algorithms[a]; !ok || u == (plan.Update{}) {
			t.Errorf("algorithm %q has no update in plan.Algorithms", a)
		}
	}
	if len(plan.Algorithms) != len(f.Enum) {
		t.Errorf("plan.Algorithms has %d entries for %d algorithms %v", len(plan.Algorithms), len(f.Enum), f.Enum)
	}
	if plan.Algorithms["grpo"] == plan.Algorithms["dapo"] {
		t.Error("grpo and dapo have the same update")
	}
}
