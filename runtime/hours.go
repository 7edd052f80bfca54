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
//
// A policy or critic update that runs a trainer's command is held, sent
// its time limit and charged the same way, at its plan hours
// (update_cost.go).

// measuredGPUHours is what a run's result says it used, and whether that
// is known.
func measuredGPUHours(env *plan.Environment, res *plugins.RunResult) (float64, bool) {
	if res == nil {
		return 0, false
	}
	return measuredHours(env.GPUs, res.Seconds, res.GPUHours)
}

// measuredHours is what a job of gpus GPUs used by its wall time in
// seconds, or by what its trainer reports if more, and whether either is
// known.
func measuredHours(gpus int, seconds, gpuHours float64) (float64, bool) {
	if seconds <= 0 && gpuHours <= 0 {
		return 0, false
	}
	wall := max(seconds, 0) / 3600 * float64(gpus)
	return max(wall, gpuHours), true
}

// charges are what finished real runs and updates are charged as
// measured, and those that measured more than they held; nanounits, as
// Budget. The updates' share is counted apart as well (updateGPUNano,
// updateOverruns), for the status.
type charges struct {
	mu               sync.Mutex
	gpuNano, usdNano int64
	overruns         int
	overrunGPUNano   int64
	updateGPUNano    int64
	updateOverruns   int
}

// settle charges a finished attempt what it measured, at most its hold,
// and counts an overrun. It says what it measured and charged when the run
// overran, for the progress log.
func (c *charges) settle(env *plan.Environment, res journal.Reservation, result *plugins.RunResult) (over overrun, overran bool) {
	if result == nil {
		return overrun{}, false
	}
	got, ok := 0.0, false
	if env != nil {
		got, ok = measuredGPUHours(env, result)
	}
	return c.charge(res.GPUHours, res.USD, got, ok, false)
}

// charge charges what a job measured (got, when ok: known), at most its
// hold of heldGPUh GPU-hours and heldUSD dollars, or its hold when what it
// measured is unknown, and counts an overrun beyond the hold.
func (c *charges) charge(heldGPUh, heldUSD, got float64, ok, update bool) (over overrun, overran bool) {
	charged, usd := heldGPUh, heldUSD
	if ok && got < heldGPUh {
		charged = got
		usd = heldUSD * got / heldGPUh
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gpuNano += nano(charged)
	c.usdNano += nano(usd)
	o := got - heldGPUh
	overran = ok && o > 1e-9*max(heldGPUh, 1)
	if overran {
		c.overruns++
		c.overrunGPUNano += nano(o)
	}
	if update {
		c.updateGPUNano += nano(charged)
		if overran {
			c.updateOverruns++
		}
	}
	return overrun{got: got, over: o, held: heldGPUh, charged: charged}, overran
}

// overrun is what a run that overran its hold measured and was charged.
type overrun struct{ got, over, held, charged float64 }

// log writes the overrun of what (a run or an update, by its key) to the
// progress log.
func (o overrun) log(p *progress, what string) {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	p.logf("%s measured %s GPU-hours, %s over the %s it held (its high hours, the time limit it was sent); charged %s, the overrun is reported",
		what, g(o.got), g(o.over), g(o.held), g(o.charged))
}

// chargeTotals are the measured charges and overruns so far, and the
// updates' share of them.
type chargeTotals struct {
	gpuHours, usd, overGPUHours, updateGPUHours float64
	overruns, updateOverruns                    int
}

func (c *charges) totals() chargeTotals {
	c.mu.Lock()
	defer c.mu.Unlock()
	return chargeTotals{gpuHours: float64(c.gpuNano) / 1e9, usd: float64(c.usdNano) / 1e9, overGPUHours: float64(c.overrunGPUNano) / 1e9,
		updateGPUHours: float64(c.updateGPUNano) / 1e9, overruns: c.overruns, updateOverruns: c.updateOverruns}
}
