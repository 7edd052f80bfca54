package runtime

import (
	"strconv"
	"sync"

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

// charges are what finished real runs are charged as measured, and the
// runs that measured more than they held; nanounits, as Budget.
type charges struct {
	mu               sync.Mutex
	gpuNano, usdNano int64
	overruns         int
	overrunGPUNano   int64
}

// settle charges a finished attempt what it measured, at most its hold,
// and counts an overrun. It says what it measured and charged when the run
// overran, for the progress log.
func (c *charges) settle(env *plan.Environment, res journal.Reservation, result *plugins.RunResult) (over overrun, overran bool) {
	if result == nil {
		return overrun{}, false
	}
	charged, usd := res.GPUHours, res.USD
	got, ok := 0.0, false
	if env != nil {
		got, ok = measuredGPUHours(env, result)
	}
	if ok && got < res.GPUHours {
		charged = got
		usd = res.USD * got / res.GPUHours
	}
	c.mu.Lock()
	c.gpuNano += nano(charged)
	c.usdNano += nano(usd)
	o := got - res.GPUHours
	overran = ok && o > 1e-9*max(res.GPUHours, 1)
	if overran {
		c.overruns++
		c.overrunGPUNano += nano(o)
	}
	c.mu.Unlock()
	return overrun{got: got, over: o, held: res.GPUHours, charged: charged}, overran
}

// overrun is what a run that overran its hold measured and was charged.
type overrun struct{ got, over, held, charged float64 }

// log writes the overrun of attempt key to the progress log.
func (o overrun) log(p *progress, key string) {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	p.logf("run %s measured %s GPU-hours, %s over the %s it held (its high hours, the time limit it was sent); charged %s, the overrun is reported",
		key, g(o.got), g(o.over), g(o.held), g(o.charged))
}

// totals are the measured charges and overruns so far.
func (c *charges) totals() (gpuh, usd float64, overruns int, overGPUh float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return float64(c.gpuNano) / 1e9, float64(c.usdNano) / 1e9, c.overruns, float64(c.overrunGPUNano) / 1e9
}
