package compiler

import (
	"fmt"
	"math"
	"reflect"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// Size limits. A spec is a few kilobytes, but its numbers can ask for
// anything: tasks.train = 1e12 would list a trillion tasks in the plan. The
// compiler counts symbolically until these checks pass, and refuses sizes
// no run could do before anything is listed one by one.
const (
	// MaxTasks is the most tasks one variant may hold over all its
	// environments. The plan lists every task (the runtime samples them and
	// runs their baselines), so the plan grows with it; at this limit a
	// spec still compiles in well under a second.
	MaxTasks = 100_000
	// MaxPlanTasks is the most tasks a whole plan may hold, over all the
	// variants of a sweep: each variant lists its own tasks.
	MaxPlanTasks = 100_000
	// MaxCount bounds every other whole number of a spec (steps, states,
	// proposals_per_state, votes, islands, rounds, ideas, seed runs, budget
	// entries, ...): a billion of anything is more than any run can make,
	// and products of such numbers stay exact in the estimate's arithmetic.
	MaxCount = 1_000_000_000
	// MaxList bounds the entries of a list attribute (calibration
	// after_steps and budget, ...): each calibration round is a phase of the
	// plan, and a realistic schedule has a handful.
	MaxList = 1_000
)

// limits refuses specs whose sizes no run could do: too many tasks, or a
// whole number beyond MaxCount. A variant that fails is marked, and the
// domain pass skips it: its counts would overflow and mean nothing.
func limits(c *compilation) {
	plan := 0.0
	for _, v := range c.variants {
		k := &checker{c: c, s: v.spec, x: v.idx, v: v}
		if k.countLimits() {
			v.tooLarge = true
		}
		if k.taskLimits() {
			v.tooLarge = true
			continue
		}
		// Products only mean something once every factor is in bounds.
		if !v.tooLarge && k.batchLimits() {
			v.tooLarge = true
		}
		plan += variantTasks(v.spec)
	}
	if plan > MaxPlanTasks && c.spec.Sweep != nil {
		c.add(diag.Errorf(CodeTooLarge, c.spec.Sweep.Range, "the sweep's %d variants hold %.0f tasks together; a plan holds at most %d", len(c.variants), plan, MaxPlanTasks).
			WithDetail("Sweep fewer values, or use fewer tasks per environment; each variant lists all its tasks in the plan."))
		for _, v := range c.variants {
			v.tooLarge = true
		}
	}
}

// variantTasks counts a spec's tasks without listing them, in floating
// point so that no sum of counts can overflow.
func variantTasks(s *spec.Spec) float64 {
	n := 0.0
	for _, e := range s.Environments {
		n += envTaskCountF(e)
	}
	return n
}

func envTaskCountF(e *spec.Environment) float64 {
	if len(e.TaskList) > 0 {
		return float64(len(e.TaskList))
	}
	if e.Tasks == nil {
		return 0
	}
	return math.Max(float64(e.Tasks.Train.V), 0) + math.Max(float64(e.Tasks.Holdout.V), 0)
}

// taskLimits reports an environment that takes the variant past MaxTasks,
// at its larger count; true when it did.
func (k *checker) taskLimits() bool {
	total := 0.0
	for _, e := range k.s.Environments {
		n := envTaskCountF(e)
		total += n
		if total <= MaxTasks {
			continue
		}
		at := k.at(e.NameRange, e.Range)
		if t := e.Tasks; t != nil && len(e.TaskList) == 0 {
			at = t.Train.Range
			if t.Holdout.V > t.Train.V || !t.Train.Range.Valid() {
				at = k.at(t.Holdout.Range, t.Range, at)
			}
		}
		what := fmt.Sprintf("environment %q has %.0f tasks", e.Name, n)
		if total > n {
			what += fmt.Sprintf(", %.0f with the environments before it", total)
		}
		k.add(diag.Errorf(CodeTooLarge, at, "%s; a plan holds at most %d tasks", what, MaxTasks).
			WithDetail("The plan lists every task and a run measures each; no run does this many. Lower tasks.train and tasks.holdout (a sample of the benchmark's tasks is enough), or split the experiment into several specs."))
		return true
	}
	return false
}

// countLimits bounds every whole number of the spec but the seed, and the
// length of every list of whole numbers, generically
// so that a new count field is covered without code here; true when one is
// too large.
func (k *checker) countLimits() bool {
	bad := false
	walkAttrs(reflect.ValueOf(k.s).Elem(), spec.Describe(), "", func(path string, f *spec.Field, fv reflect.Value) {
		switch v := fv.Interface().(type) {
		case spec.Val[int]:
			if path == "seed" || !v.Set || v.V <= MaxCount {
				return
			}
			if f.Name == "train" || f.Name == "holdout" {
				return // taskLimits says it with the task limit
			}
			bad = true
			k.add(diag.Errorf(CodeTooLarge, v.Range, "%s = %d is more than any run can do; the limit is %d", path, v.V, MaxCount).
				WithDetail("Write a realistic number; the estimate and the runtime work with every count up to %d.", MaxCount))
		case spec.Val[[]string]:
			if len(v.V) > MaxList {
				bad = true
				k.add(diag.Errorf(CodeTooLarge, v.Range, "%s has %d entries; the limit is %d", path, len(v.V), MaxList).
					WithDetail("Write a realistic list: a handful of paths or arguments."))
			}
		case spec.Val[[]int]:
			if len(v.V) > MaxList {
				bad = true
				k.add(diag.Errorf(CodeTooLarge, v.Range, "%s has %d entries; the limit is %d", path, len(v.V), MaxList).
					WithDetail("Each entry is a round of the plan; a realistic schedule has a handful."))
				return
			}
			for i, n := range v.V {
				if n > MaxCount {
					bad = true
					k.add(diag.Errorf(CodeTooLarge, v.Range, "%s[%d] = %d is more than any run can do; the limit is %d", path, i, n, MaxCount).
						WithDetail("Write a realistic number; the estimate and the runtime work with every count up to %d.", MaxCount))
					return
				}
			}
		}
	})
	return bad
}
