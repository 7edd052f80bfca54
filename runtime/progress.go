package runtime

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// progress reports a run's advance: on a terminal a live line per phase
// (steps, real runs used of the budget, dollars so far); otherwise plain log
// lines, one per phase event, so logs stay readable in CI and files.
type progress struct {
	w     io.Writer
	tty   bool
	r     *service
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	phase string
	last  time.Time
}

func newProgress(w io.Writer, r *service) *progress {
	p := &progress{w: w, r: r}
	if f, ok := w.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		p.tty = true
	}
	return p
}

func (p *progress) budgetLine() string {
	s := p.r.budget.Spent()
	c := p.r.budget.Caps()
	runs := fmt.Sprintf("%d", s.RealRuns)
	if c.RealRuns > 0 {
		runs = fmt.Sprintf("%d/%d", s.RealRuns, c.RealRuns)
	}
	usd := dollars(s.USD)
	if c.USD > 0 {
		usd += " of " + dollars(c.USD)
	}
	return fmt.Sprintf("real runs %s, %s", runs, usd)
}

// start begins a phase of total units (steps, runs or rounds).
func (p *progress) start(phase string, total int, unit string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishBar()
	p.phase = phase
	if p.tty {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(phase),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
		)
		return
	}
	if total < 0 {
		fmt.Fprintf(p.w, "assay: phase %s: %s until the budget is spent (%s)\n", phase, unit, p.budgetLine())
		return
	}
	fmt.Fprintf(p.w, "assay: phase %s: %d %s (%s)\n", phase, total, unit, p.budgetLine())
}

// step advances the phase by one unit.
func (p *progress) step(detail string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Describe(p.phase + ": " + p.budgetLine())
		_ = p.bar.Add(1)
		return
	}
	if !p.tty && detail != "" {
		fmt.Fprintf(p.w, "assay: %s: %s (%s)\n", p.phase, plugins.Printable(detail), p.budgetLine())
	}
}

// tick refreshes the live line after a real run, at most a few times a
// second.
func (p *progress) tick() {
	if p.w == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil && time.Since(p.last) > 200*time.Millisecond {
		p.last = time.Now()
		p.bar.Describe(p.phase + ": " + p.budgetLine())
	}
}

func (p *progress) logf(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	// One line whatever the arguments hold: they carry plugins' errors.
	fmt.Fprintln(p.w, "assay: "+plugins.Printable(fmt.Sprintf(format, args...)))
}

// pluginStarting shows a plugin's start-up, which a phase waits on: a line
// when it begins and one when it is ready; call the returned function with
// Open's error. (A nil progress, as in tests, shows nothing.)
func (p *progress) pluginStarting(pl *plan.Plugin) func(error) {
	if p == nil || p.w == nil {
		return func(error) {}
	}
	start := time.Now()
	p.logf("starting plugin %s (%s)", pl.Name, pl.Source)
	return func(err error) {
		if err == nil {
			p.logf("plugin %s ready in %.2f s", pl.Name, time.Since(start).Seconds())
		}
	}
}

func (p *progress) finishBar() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}

func (p *progress) done(res *Result) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishBar()
	t := res.Totals
	fmt.Fprintf(p.w, "assay: run %s %s: %d real runs (%d finished, %d infeasible), %s GPU-hours, %s (LLM %s), %d LLM calls, %d steps, best real gain %.4g\n",
		res.ID, res.State, t.RealRuns, t.Finished, t.Infeasible, strconv.FormatFloat(t.GPUHours, 'g', 4, 64), dollars(t.USD), dollars(t.LLMUSD), t.LLMCalls, t.Steps, t.BestGain)
	// A failed run's reason is Run's error, which its caller reports: said
	// here as well, it would print twice.
	if res.Reason != "" && res.State != StateFailed && res.State != StatePhaseFailed {
		fmt.Fprintf(p.w, "assay: %s\n", plugins.Printable(res.Reason))
	}
}
