package compiler

import (
	"slices"
	"sort"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// index maps block names to blocks, per kind.
type index struct {
	plugins map[string]*spec.Plugin
	roles   map[string]*spec.Role
	rewards map[string]*spec.Reward
	critics map[string]*spec.Critic
	loops   map[string]*spec.Loop
	envs    map[string]*spec.Environment
}

// buildIndex indexes s, reporting duplicate names when report is set.
func buildIndex(s *spec.Spec, report func(*diag.Diagnostic)) *index {
	x := &index{
		plugins: map[string]*spec.Plugin{}, roles: map[string]*spec.Role{},
		rewards: map[string]*spec.Reward{}, critics: map[string]*spec.Critic{},
		loops: map[string]*spec.Loop{}, envs: map[string]*spec.Environment{},
	}
	dup := func(kind, name string, r diag.Range) {
		if report != nil {
			report(diag.Errorf(CodeDuplicate, r, "%s %q is declared twice", kind, name).
				WithDetail("rename one of them; block names of one kind must be unique"))
		}
	}
	for _, p := range s.Plugins {
		if _, ok := x.plugins[p.Name]; ok {
			dup("plugin", p.Name, p.NameRange)
			continue
		}
		x.plugins[p.Name] = p
	}
	for _, p := range s.Roles {
		if _, ok := x.roles[p.Name]; ok {
			dup("role", p.Name, p.NameRange)
			continue
		}
		x.roles[p.Name] = p
	}
	for _, p := range s.Rewards {
		if _, ok := x.rewards[p.Name]; ok {
			dup("reward", p.Name, p.NameRange)
			continue
		}
		x.rewards[p.Name] = p
	}
	for _, p := range s.Critics {
		if _, ok := x.critics[p.Name]; ok {
			dup("critic", p.Name, p.NameRange)
			continue
		}
		x.critics[p.Name] = p
	}
	for _, p := range s.Loops {
		if _, ok := x.loops[p.Name]; ok {
			dup("loop", p.Name, p.NameRange)
			continue
		}
		x.loops[p.Name] = p
	}
	for _, p := range s.Environments {
		if _, ok := x.envs[p.Name]; ok {
			dup("environment", p.Name, p.NameRange)
			continue
		}
		x.envs[p.Name] = p
	}
	return x
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (x *index) names(kind string) []string {
	switch kind {
	case "plugin":
		return keys(x.plugins)
	case "role":
		return keys(x.roles)
	case "reward":
		return keys(x.rewards)
	case "critic":
		return keys(x.critics)
	case "loop":
		return keys(x.loops)
	case "environment":
		return keys(x.envs)
	}
	return nil
}

// resolve checks that every reference names an existing block of the right
// kind, and fills calibration.loop when the spec has exactly one RL loop.
func resolve(c *compilation) {
	s := c.spec
	c.idx = buildIndex(s, func(d *diag.Diagnostic) { c.add(d) })
	rs := &resolver{c: c, x: c.idx}
	for _, e := range s.Environments {
		rs.pluginKind(e.Trainer, "trainer", "trainer")
		rs.pluginKind(e.Benchmark, "benchmark", "benchmark")
	}
	for _, r := range s.Roles {
		rs.pluginKind(r.LLM, "llm", "llm")
	}
	for _, r := range s.Rewards {
		rs.predictor(r)
	}
	for _, cr := range s.Critics {
		rs.ref(cr.Role, "role", "role")
	}
	for _, l := range s.Loops {
		rs.ref(l.Reward, "reward", "reward")
		rs.ref(l.Screen, "screen", "critic")
		if l.Update != nil {
			rs.pluginKind(l.Update.Trainer, "update.trainer", "trainer")
		}
	}
	rs.criticTrainings(s)
	if cal := s.Calibration; cal != nil {
		rs.calibrationLoop(s, cal)
	}
}

// A resolver checks the references of one spec against its index.
type resolver struct {
	c *compilation
	x *index
}

// ref checks that r, when set, names a declared block of kind; true when
// it does.
func (rs *resolver) ref(r spec.Ref, field, kind string) bool {
	if !r.Set {
		return false
	}
	if r.Kind != kind {
		rs.c.add(diag.Errorf(CodeRefKind, r.Range, "%s must refer to a %s, not %s", field, kind, r.String()).
			WithDetail("write %s = %s.NAME", field, kind))
		return false
	}
	names := rs.x.names(kind)
	if slices.Contains(names, r.Name) {
		return true
	}
	d := diag.Errorf(CodeUnknownRef, r.Range, "%s refers to %s, which is not declared", field, r.String())
	if hint := diag.DidYouMean(r.Name, names); hint != "" {
		d.WithDetail("%s", hint)
	} else if len(names) == 0 {
		d.WithDetail("declare a %s %q block", kind, r.Name)
	} else {
		d.WithDetail("declared %ss: %v", kind, names)
	}
	rs.c.add(d)
	return false
}

// pluginKind checks that r names a declared plugin of kind want.
func (rs *resolver) pluginKind(r spec.Ref, field, want string) {
	if rs.ref(r, field, "plugin") {
		p := rs.x.plugins[r.Name]
		if p.Kind.Set && p.Kind.V != want {
			rs.c.add(diag.Errorf(CodeRefKind, r.Range, "%s must be a %s plugin; plugin %q is a %s plugin", field, want, r.Name, p.Kind.V))
		}
	}
}

// predictor checks a reward's predictor by the reward's source: a critic,
// a role, or none for a real reward.
func (rs *resolver) predictor(r *spec.Reward) {
	if !r.Predictor.Set {
		return
	}
	switch r.Source.V {
	case "critic":
		rs.ref(r.Predictor, "predictor", "critic")
	case "real":
		rs.c.add(diag.Errorf(CodeConflict, r.Predictor.Range, "a reward with source \"real\" takes no predictor").
			WithDetail("remove predictor, or set source = \"predicted\""))
	default:
		rs.ref(r.Predictor, "predictor", "role")
	}
}

// criticTrainings checks the references of critic trainings and of loops'
// continual critics.
func (rs *resolver) criticTrainings(s *spec.Spec) {
	for _, l := range s.Loops {
		if c := l.Continual; c != nil {
			rs.ref(c.Teacher, "continual.teacher", "role")
			rs.pluginKind(c.Trainer, "continual.trainer", "trainer")
		}
	}
	for _, ct := range s.CriticTrainings {
		rs.ref(ct.Critic, "critic", "critic")
		rs.ref(ct.Teacher, "teacher", "role")
		for _, tr := range []spec.Ref{ctTrainer(ct.SFT), ctTrainer(ct.GRPO)} {
			rs.pluginKind(tr, "trainer", "trainer")
		}
	}
}

// calibrationLoop checks calibration.loop, or fills it with the spec's
// only RL loop.
func (rs *resolver) calibrationLoop(s *spec.Spec, cal *spec.Calibration) {
	if cal.Loop.Set {
		if rs.ref(cal.Loop, "loop", "loop") {
			if l := rs.x.loops[cal.Loop.Name]; l.Kind.Set && l.Kind.V != "rl" {
				rs.c.add(diag.Errorf(CodeCalLoop, cal.Loop.Range, "calibration.loop must be an RL loop; loop %q is %s", l.Name, l.Kind.V))
			}
		}
	} else {
		var rl []*spec.Loop
		for _, l := range s.Loops {
			if l.Kind.V == "rl" {
				rl = append(rl, l)
			}
		}
		switch len(rl) {
		case 0:
			rs.c.add(diag.Errorf(CodeCalLoop, cal.Range, "calibration needs an RL loop, and the spec has none").
				WithDetail("add a loop with kind = \"rl\", or remove the calibration block"))
		case 1:
			cal.Loop = spec.Ref{Kind: "loop", Name: rl[0].Name, Set: true, Range: cal.Range}
		default:
			rs.c.add(diag.Errorf(CodeMissing, cal.Range, "calibration must name its loop: the spec has %d RL loops", len(rl)).
				WithDetail("write loop = loop.%s", rl[0].Name))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string { return keys(m) }
