package runtime

import (
	"strconv"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// A real run holds its environment's high GPU-hours (and their dollars)
// against the caps from its reservation on, and is stopped at its high
// hours (plan.Environment.TimeLimitSeconds, sent as
// RunRequest.TimeLimitSeconds), so it cannot use more than it holds. The
// caps keep counting the hold after the run ends: a run's unused hours are
// not lent to later runs, so which runs fit a cap never depends on how long
// runs took (a resumed run reserves exactly what an uninterrupted one did).
//
// When its result comes, the run is charged what it measured: its wall
// time times its GPUs (or what the trainer reports, if more), at most its
// hold; a run whose duration is unknown (waited on after a resume, or
// failed before it was timed) is charged its hold. What a run measured
// beyond its hold (a trainer that did not stop it, a scheduler that
// noticed late) is an overrun, reported in the totals, the status, the
// report and the progress log.

// measuredGPUHours is what a run's result says it used, and whether that
// is known.
func measuredGPUHours(env *plan.Environment, res *plugins.RunResult) (float64, bool) {
	if res == nil || (res.Seconds <= 0 && res.GPUHours <= 0) {
		return 0, false
	}
	wall := max(res.Seconds, 0) / 3600 * float64(env.GPUs)
	return max(wall, res.GPUHours), true
}

// settleRun charges a finished attempt what it measured, at most its
// hold, and counts an overrun; key names the attempt in the progress log
// ("" for one read back from the journal, which is not logged again).
func (r *service) settleRun(key string, res journal.Reservation, result *plugins.RunResult) {
	if result == nil {
		return
	}
	charged, usd := res.GPUHours, res.USD
	env := r.envs[res.Env]
	got, ok := 0.0, false
	if env != nil {
		got, ok = measuredGPUHours(env, result)
	}
	if ok && got < res.GPUHours {
		charged = got
		usd = res.USD * got / res.GPUHours
	}
	r.omu.Lock()
	r.chargedGPUNano += nano(charged)
	r.chargedUSDNano += nano(usd)
	over := got - res.GPUHours
	overran := ok && over > 1e-9*max(res.GPUHours, 1)
	if overran {
		r.overruns++
		r.overrunGPUNano += nano(over)
	}
	r.omu.Unlock()
	if overran && key != "" {
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
		r.progress.logf("run %s measured %s GPU-hours, %s over the %s it held (its high hours, the time limit it was sent); charged %s, the overrun is reported",
			key, g(got), g(over), g(res.GPUHours), g(charged))
	}
}

// chargedTotals are the measured charges and overruns so far.
func (r *service) chargedTotals() (gpuh, usd float64, overruns int, overGPUh float64) {
	r.omu.Lock()
	defer r.omu.Unlock()
	return float64(r.chargedGPUNano) / 1e9, float64(r.chargedUSDNano) / 1e9, r.overruns, float64(r.overrunGPUNano) / 1e9
}
