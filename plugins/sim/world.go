package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assay-lang/assay/plugins"
)

// Dist is a distribution of one number.
type Dist struct {
	// Kind is "fixed" (always A), "uniform" (in [A, B]) or "normal" (mean
	// A, standard deviation B).
	Kind string
	A, B float64
}

// Fixed is a Dist that is always x.
func Fixed(x float64) Dist { return Dist{Kind: "fixed", A: x} }

// draw maps a hash to a draw.
func (d Dist) draw(h uint64) float64 {
	switch d.Kind {
	case "uniform":
		return d.A + (d.B-d.A)*unit(h)
	case "normal":
		return d.A + d.B*normal(h)
	}
	return d.A
}

// Validate reports a distribution that cannot be drawn from: one whose
// parameters or range (Low, High) are not finite numbers, since every
// draw must be one.
func (d Dist) Validate() error {
	for _, x := range []float64{d.A, d.B, d.Low(), d.High(), d.High() - d.Low()} {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("%s: its draws are not all finite numbers", d)
		}
	}
	switch d.Kind {
	case "fixed":
	case "uniform":
		if d.B < d.A {
			return fmt.Errorf("uniform [%g, %g]: the high end is below the low end", d.A, d.B)
		}
	case "normal":
		if d.B < 0 {
			return fmt.Errorf("normal(%g, %g): the standard deviation is negative", d.A, d.B)
		}
	default:
		return fmt.Errorf("unknown distribution %q (use fixed, uniform or normal)", d.Kind)
	}
	return nil
}

// Low and High are the least and most a draw can be (±4 standard
// deviations for a normal).
func (d Dist) Low() float64 {
	switch d.Kind {
	case "uniform":
		return d.A
	case "normal":
		return d.A - 4*d.B
	}
	return d.A
}

// High is the most a draw can be; see Low.
func (d Dist) High() float64 {
	switch d.Kind {
	case "uniform":
		return d.B
	case "normal":
		return d.A + 4*d.B
	}
	return d.A
}

func (d Dist) String() string {
	switch d.Kind {
	case "uniform":
		return fmt.Sprintf("uniform(%g, %g)", d.A, d.B)
	case "normal":
		return fmt.Sprintf("normal(%g, %g)", d.A, d.B)
	}
	return fmt.Sprintf("%g", d.A)
}

// World is one simulated world: what every plugin answers is drawn from
// it. Build it whole before the first call; the plugins only read it.
type World struct {
	Seed int64
	// Envs by environment name.
	Envs map[string]*Env
	// Roles by RoleKey(plugin, kind, model): what a call of the role
	// answers and how long it takes.
	Roles map[string]*Role
	// Knobs are what the simulated trainer lets proposals edit.
	Knobs []plugins.Knob
	// UpdateHours are the hours one policy update takes, by its loop (a
	// loop's update block); an update's run id is LOOP/update/N.
	UpdateHours map[string]float64
	Clock       *Clock
	// OnCall, when set, is called before every LLM call and every run's
	// result (a rehearsal interrupts itself from it).
	OnCall func()

	// votes counts the critic votes given so far per candidate, so an
	// unsure critic splits its votes evenly.
	vmu   sync.Mutex
	votes map[string]int
}

// Env is one environment of the world.
type Env struct {
	// Gain is the gain of a proposal, in units of its task's scale.
	Gain Dist
	// Hours is the wall-clock hours of one run, drawn per run.
	Hours Dist
	// Slots is how many of its runs go at once (the executor's
	// concurrency, bounded by its GPUs): the clock moves by Hours / Slots
	// per run.
	Slots float64
	// Infeasible is the share of runs that crash (a result, not an error).
	Infeasible float64
	// Failed is the share of run attempts the infrastructure fails
	// (retried by the runtime under a new reservation).
	Failed float64
	// Tasks by name.
	Tasks map[string]*Task
}

// Task is one task's reference metric.
type Task struct {
	Split    string
	Baseline float64
	Scale    float64
	Minimize bool
}

// Role is how one LLM role of the world answers.
type Role struct {
	Name string
	// Seconds is how far the clock moves per call: the role's seconds per
	// call over its concurrency.
	Seconds float64
	// BuildFailures is the share of builds that fail (builder roles).
	BuildFailures float64
	// Accuracy is the share of a critic's confident verdicts that are
	// right; Unsure is the share of candidates on which its votes split
	// evenly (which a critic routes to real runs).
	Accuracy, Unsure float64
	// Noise is the standard deviation of a world model's error, in units
	// of the task's scale.
	Noise float64
	// Trains says whether the proposer's policy can be updated (the real
	// plugin the role names can).
	Trains bool
}

// RoleKey names a role by what a call carries: the plugin serving it, its
// kind and its model.
func RoleKey(plugin, kind, model string) string { return plugin + "\x00" + kind + "\x00" + model }

// DefaultKnobs are the simulated trainer's knobs: twelve settings in four
// mechanisms, eight values each.
func DefaultKnobs() []plugins.Knob {
	mech := []string{"optimizer", "architecture", "schedule", "regularisation"}
	var out []plugins.Knob
	for i := 0; i < 12; i++ {
		k := plugins.Knob{Name: fmt.Sprintf("knob%02d", i), Mechanism: mech[i%4], Default: "0"}
		for v := 0; v < 8; v++ {
			k.Values = append(k.Values, fmt.Sprint(v))
		}
		out = append(out, k)
	}
	return out
}

func (w *World) task(env, task string) (*Env, *Task, error) {
	e := w.Envs[env]
	if e == nil {
		return nil, nil, fmt.Errorf("sim: the world has no environment %q", env)
	}
	t := e.Tasks[task]
	if t == nil {
		return nil, nil, fmt.Errorf("sim: environment %s has no task %q", env, task)
	}
	return e, t, nil
}

// key is a proposal's identity as the world sees it: its edits (or text).
func key(p plugins.Proposal) string {
	if len(p.Edits) == 0 {
		if p.Patch == "" && (p.ID == "" || p.ID == "base" || p.ID == "baseline") {
			return ""
		}
		return "text:" + p.ID + "\x00" + p.Text + "\x00" + p.Patch
	}
	// Sorted in place and written in one allocation: a critic-grpo
	// rehearsal makes a key for both sides of every critic vote.
	var arr [8]string
	keys, n := arr[:0], 0
	for k, v := range p.Edits {
		keys = append(keys, k)
		n += len(k) + len(v) + 2
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(p.Edits[k])
		b.WriteByte(';')
	}
	return b.String()
}

// gain is the true gain of a proposal on a task, in metric units: zero for
// the reference configuration, else a draw of the environment's gain
// distribution times the task's scale.
func (w *World) gain(env, task string, p plugins.Proposal) (float64, error) {
	e, t, err := w.task(env, task)
	if err != nil {
		return 0, err
	}
	k := key(p)
	if k == "" {
		return 0, nil
	}
	return e.Gain.draw(hash(w.Seed, "gain", env, task, k)) * t.Scale, nil
}

// Clock is a virtual clock: the simulated plugins advance it by what each
// call and run would take, and the runtime reads it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *Clock) advanceHours(h float64) {
	if c != nil && h > 0 {
		c.Advance(time.Duration(h * float64(time.Hour)))
	}
}
