package compiler

import (
	"slices"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/formula"
	"github.com/assay-lang/assay/lang/spec"
)

// baselineTask is a task whose baseline metric b_e a real run must measure.
type baselineTask struct {
	env  *spec.Environment
	task *spec.Task
}

// baselineTasks lists, in environment and task order, the tasks whose
// baseline the runtime measures with one real run of the unedited reference
// configuration: tasks of a split some phase runs for real (or whose reward
// formula reads baseline) that declare no baseline (task or environment) and
// whose environment has no benchmark plugin to supply one, nor a suite
// placeholder the user writes before a run. The plan counts
// these runs in its baselines phase, so the estimate and the budget see them.
func baselineTasks(s *spec.Spec, x *index) []baselineTask {
	splits := baselineSplits(s, x)
	if len(splits) == 0 {
		return nil
	}
	var out []baselineTask
	for _, e := range s.Environments {
		if e.Benchmark.Set || e.Baseline.Set {
			continue
		}
		for _, t := range envTasks(e, "") {
			if !t.Baseline.Set && splits[t.Split.V] && !t.Suite.Has("baseline") {
				out = append(out, baselineTask{e, t})
			}
		}
	}
	return out
}

// baselineCount is len(baselineTasks(s, x)) without listing the tasks.
func baselineCount(s *spec.Spec, x *index) int {
	splits := baselineSplits(s, x)
	n := 0
	for _, e := range s.Environments {
		if e.Benchmark.Set || e.Baseline.Set {
			continue
		}
		if len(e.TaskList) == 0 {
			for sp := range splits {
				n += envTaskCount(e, sp)
			}
			continue
		}
		for _, t := range e.TaskList {
			if !t.Baseline.Set && splits[t.Split.V] && !t.Suite.Has("baseline") {
				n++
			}
		}
	}
	return n
}

// baselineSplits is the set of splits on which a task's baseline is read:
// the splits of every phase that makes real runs (a real run's gain is its
// metric against the baseline), and of every RL loop whose reward formula
// names baseline.
func baselineSplits(s *spec.Spec, x *index) map[string]bool {
	out := map[string]bool{}
	if seedRuns(s) > 0 {
		out["train"] = true
	}
	if ev := s.Evaluation; ev != nil && max(ev.AvgAt.V, ev.BestAt.V) > 0 {
		out[splitOr(ev.Split.V, "holdout")] = true
	}
	for _, l := range s.Loops {
		split := splitOr(l.Split.V, "train")
		switch l.Kind.V {
		case "evolution":
			if l.Verifications.V > 0 {
				out[split] = true
			}
		case "rl":
			rw := x.rewards[l.Reward.Name]
			switch {
			case rw == nil:
			case rw.Source.V == "real" && !l.Screen.Set:
				out[split] = true
			case l.Screen.Set && rw.Source.V != "predicted":
				out[split] = true
			case readsBaseline(rw.Value) || readsBaseline(rw.Infeasible):
				out[split] = true
			}
			if calibrates(s, l) {
				out[split] = true
			}
		}
	}
	return out
}

// calibrates reports whether a calibration round of loop l makes real runs.
func calibrates(s *spec.Spec, l *spec.Loop) bool {
	cal := s.Calibration
	if cal == nil || cal.Loop.Name != l.Name {
		return false
	}
	for i, n := range calibrationRuns(cal) {
		// A round after the last step of a fixed-step loop never runs.
		if n > 0 && (l.UntilBudget.V || !l.Steps.Set || cal.AfterSteps.V[i] < l.Steps.V) {
			return true
		}
	}
	return false
}

func readsBaseline(f spec.Formula) bool {
	if !f.Set {
		return false
	}
	e, ds := formula.Parse(f.V, diag.Range{})
	if ds.HasErrors() || e == nil {
		return false
	}
	return slices.Contains(e.Vars(), "baseline")
}

func splitOr(split, def string) string {
	if split == "" {
		return def
	}
	return split
}
