package compiler

import (
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/spec"
)

// baselines adds the baselines phase: one real run of the unedited
// reference configuration per task whose baseline is neither declared nor
// supplied by a benchmark (see baselineTasks). No proposal, so no LLM call.
// It returns the phase's real runs.
func (pl *phaseLowering) baselines() int {
	bts := baselineTasks(pl.lv.s, pl.lv.x)
	if len(bts) == 0 {
		return 0
	}
	r := pl.newPhase(plan.PhaseBaselines, plan.PhaseBaselines, bts[0].env.NameRange)
	body := &plan.BaselinesBody{}
	r.ph.Baselines = body
	for _, bt := range bts {
		body.Tasks = append(body.Tasks, plan.TaskRef{Env: bt.env.Name, Task: bt.task.Name})
		forScen(func(sc int) { r.addRuns(bt.env.Name, sc, 1) })
	}
	return len(bts)
}

// lowerMissing splits a suite task's placeholders into the environment's
// (its checkout, once for every task) and the task's own.
func lowerMissing(env []plan.Missing, unfilled []spec.Unfilled) ([]plan.Missing, []plan.Missing) {
	var own []plan.Missing
	for _, u := range unfilled {
		m := plan.Missing{Field: u.Field, Fill: u.Fill, At: u.At}
		if u.Field != "suite_root" {
			own = append(own, m)
		} else if len(env) == 0 {
			env = append(env, m)
		}
	}
	return env, own
}
