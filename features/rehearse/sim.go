package rehearse

import (
	"fmt"
	"hash/fnv"
	"math"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/sim"
)

// Defaults of a world where the plan states no assumption.
var (
	defaultGain     = sim.Dist{Kind: "normal", A: -0.2, B: 1}
	defaultAccuracy = sim.Fixed(0.8)
	defaultNoise    = sim.Fixed(0.5)
	// defaultUnsure is how often a critic that routes nothing is unsure.
	defaultUnsure = sim.Fixed(0.3)
)

// simUnit draws a number in [0, 1) from a seed and a name.
func simUnit(seed int64, parts ...string) float64 {
	h := fnv.New64a()
	fmt.Fprint(h, seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// share draws a share once per rehearsal from d.
func share(d sim.Dist, seed int64, name string) float64 {
	switch d.Kind {
	case "uniform":
		return d.A + (d.B-d.A)*simUnit(seed, "share", name)
	}
	return d.A
}

// assumption finds a plan assumption by name.
func assumption(v *plan.Variant, name string) (plan.Count, bool) {
	for _, a := range v.Assumptions {
		if a.Name == name {
			return a.Value, true
		}
	}
	return plan.Count{}, false
}

// within is a distribution over an assumption's range: uniform over it, or
// fixed at its value where the range is a point.
func within(c plan.Count) sim.Dist {
	if c.High > c.Low {
		return sim.Dist{Kind: "uniform", A: c.Low, B: c.High}
	}
	return sim.Fixed(c.Expected)
}

// World builds the simulated world of one rehearsal of v: the world file's
// settings where it has them, else defaults that keep to the plan's stated
// assumptions (hours per run, build failures, a critic's routed share
// within their ranges).
func World(v *plan.Variant, wf *WorldFile, seed int64, clock *sim.Clock) *sim.World {
	if wf == nil {
		wf = &WorldFile{}
	}
	w := &sim.World{Seed: seed, Envs: map[string]*sim.Env{}, Roles: map[string]*sim.Role{}, Knobs: sim.DefaultKnobs(), Clock: clock, UpdateHours: map[string]float64{}}
	for _, l := range v.Loops {
		if l.Update != nil {
			w.UpdateHours[l.Name] = l.Update.Hours
		}
	}
	criticUpdateHours(w, v)
	for _, e := range v.Envs {
		es := wf.Envs[e.Name]
		if es == nil {
			es = wf.Envs["*"]
		}
		if es == nil {
			es = &EnvSettings{}
		}
		hours := within(e.Hours)
		se := &sim.Env{
			Gain:  orDefault(es.Gain, defaultGain),
			Hours: orDefault(es.Hours, hours),
			Slots: slots(v.Executor, e),
			Tasks: map[string]*sim.Task{},
		}
		se.Infeasible = share(orDefault(es.Infeasible, sim.Fixed(0)), seed, "infeasible/"+e.Name)
		se.Failed = share(orDefault(es.Failed, sim.Fixed(0)), seed, "failed/"+e.Name)
		for _, t := range e.Tasks {
			st := &sim.Task{Split: t.Split, Baseline: 1, Scale: 1, Minimize: t.Direction == plan.Minimize}
			if t.Baseline != nil {
				st.Baseline = *t.Baseline
			}
			if t.Scale != nil && *t.Scale > 0 {
				st.Scale = *t.Scale
			}
			se.Tasks[t.Name] = st
		}
		w.Envs[e.Name] = se
	}
	sources := map[string]string{}
	for _, p := range v.Plugins {
		sources[p.Name] = p.Source
	}
	for _, ro := range v.Roles {
		rs := wf.Roles[ro.Name]
		if rs == nil {
			rs = wf.Roles["*"]
		}
		if rs == nil {
			rs = &RoleSettings{}
		}
		sr := &sim.Role{Name: ro.Name, Seconds: ro.Seconds / float64(max(ro.Concurrency, 1)),
			// A hosted model's plugin cannot train a policy; the rehearsal
			// keeps that, so it makes the updates a run would.
			Trains: sources[ro.Plugin] != "builtin:openai"}
		bf := sim.Fixed(0)
		if c, ok := assumption(v, "role."+ro.Name+".build_failures"); ok {
			bf = within(c)
		}
		sr.BuildFailures = share(orDefault(rs.BuildFailures, bf), seed, "build/"+ro.Name)
		unsure := defaultUnsure
		for _, c := range v.Critics {
			if c.Role != ro.Name {
				continue
			}
			if a, ok := assumption(v, "critic."+c.Name+".routed_share"); ok {
				unsure = within(a)
			}
		}
		sr.Unsure = share(orDefault(rs.Unsure, unsure), seed, "unsure/"+ro.Name)
		sr.Accuracy = share(orDefault(rs.Accuracy, defaultAccuracy), seed, "accuracy/"+ro.Name)
		sr.Noise = share(orDefault(rs.Noise, defaultNoise), seed, "noise/"+ro.Name)
		w.Roles[sim.RoleKey(ro.Plugin, ro.Kind, ro.Model)] = sr
	}
	return w
}

// slots is how many runs of an environment go at once, as the estimate
// counts wall-clock hours.
func slots(ex plan.Executor, e *plan.Environment) float64 {
	c := max(ex.Concurrency, 1)
	if ex.GPUs > 0 && e.GPUs > 0 {
		c = min(c, max(ex.GPUs/e.GPUs, 1))
	}
	return math.Max(float64(c), 1)
}
