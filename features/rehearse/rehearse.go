package rehearse

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/features/runcompare"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/sim"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
)

// Options configure Rehearse.
type Options struct {
	// Variant picks the plan's variant; empty: the first.
	Variant string
	// Runs is how many rehearsals to make (default 1); rehearsal i uses
	// world seed Seed+i.
	Runs int
	Seed int64
	// World sets the distributions; nil keeps every default.
	World *WorldFile
	// Interrupt stops each rehearsal at a random call or run and resumes
	// it from its journal, so resume is rehearsed too.
	Interrupt bool
	// Dir holds the rehearsals' journals; empty: a temporary folder,
	// removed afterwards.
	Dir string
}

// Rehearsal is one rehearsal's outcome.
type Rehearsal struct {
	Seed      int64          `json:"seed"`
	State     string         `json:"state"`
	Reason    string         `json:"reason,omitempty"`
	Totals    runtime.Totals `json:"totals"`
	WallHours float64        `json:"wall_hours"`
	// InterruptedAt is the call or run at which the rehearsal was stopped
	// and resumed (0: not interrupted).
	InterruptedAt int64 `json:"interrupted_at,omitempty"`
	// CapsBroken lists the caps the rehearsal exceeded.
	CapsBroken []string `json:"caps_broken,omitempty"`
	// Cuts are the phases a cap stopped or shrank (state stopped_at_cap).
	Cuts []runtime.PhaseCut `json:"cut_phases,omitempty"`
}

// Figure is one figure over the rehearsals beside the estimate's.
type Figure struct {
	// Name is the figure's path in `assay estimate --format json`, e.g.
	// "roles.rwm.calls".
	Name     string     `json:"name"`
	Estimate plan.Count `json:"estimate"`
	// Min, Median and Max over the rehearsals.
	Min, Median, Max float64
	Outside          bool `json:"outside"`
	// Values are the rehearsals' values, in rehearsal order.
	Values []float64 `json:"-"`
}

// Report is the outcome of a set of rehearsals.
type Report struct {
	Plan       string      `json:"plan"`
	Variant    string      `json:"variant"`
	Rehearsals []Rehearsal `json:"rehearsals"`
	Figures    []Figure    `json:"figures"`
	CapsHeld   bool        `json:"caps_held"`
	// CapStops says, per cap, in how many rehearsals it stopped or shrank
	// a phase.
	CapStops []CapStop `json:"cap_stops,omitempty"`
}

// Outside lists the figures some rehearsal put outside the estimate's
// [low, high].
func (r *Report) Outside() []Figure {
	var out []Figure
	for _, f := range r.Figures {
		if f.Outside {
			out = append(out, f)
		}
	}
	return out
}

// Rehearse runs opts.Runs rehearsals of a variant of p and compares them
// with its estimate. An error is returned for a rehearsal that could not
// run to its end (a runtime error); a cap exceeded or a figure outside the
// estimate is in the report.
func Rehearse(ctx context.Context, p *plan.Plan, opts Options) (*Report, error) {
	v, err := variant(p, opts.Variant)
	if err != nil {
		return nil, err
	}
	if ds := opts.World.Check(v); ds.HasErrors() {
		return nil, ds.Err()
	}
	n := max(opts.Runs, 1)
	dir := opts.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "assay-rehearse-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	rep := &Report{Plan: p.Name, Variant: v.Name, CapsHeld: true}
	est := estimate.Estimate(p)
	sim, err := simulatedBuilds(p)
	if err != nil {
		return nil, err
	}
	if sim != p {
		if v, err = variant(sim, v.Name); err != nil {
			return nil, err
		}
	}
	rhs, err := all(ctx, sim, v, opts, n, dir)
	if err != nil {
		return nil, err
	}
	for _, rh := range rhs {
		if len(rh.CapsBroken) > 0 {
			rep.CapsHeld = false
		}
		rep.Rehearsals = append(rep.Rehearsals, *rh)
	}
	rep.Figures = figures(p, v, est, rep.Rehearsals)
	rep.CapStops = capStops(rep.Rehearsals)
	return rep, nil
}

// all makes n rehearsals, as many at once as there are cores: each is a
// run of its own with its own journal and clock, and rehearsal i is the
// same whichever worker makes it. The first failed rehearsal (by index)
// is the error.
func all(ctx context.Context, p *plan.Plan, v *plan.Variant, opts Options, n int, dir string) ([]*Rehearsal, error) {
	out := make([]*Rehearsal, n)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, goruntime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				out[i], errs[i] = once(ctx, p, v, opts, opts.Seed+int64(i), dir)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("rehearsal %d (world seed %d): %w", i+1, opts.Seed+int64(i), err)
		}
	}
	return out, nil
}

func variant(p *plan.Plan, name string) (*plan.Variant, error) { return p.Variant(name) }

// start is where every rehearsal's virtual clock begins.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// once makes one rehearsal with world seed seed.
func once(ctx context.Context, p *plan.Plan, v *plan.Variant, opts Options, seed int64, dir string) (*Rehearsal, error) {
	clock := sim.NewClock(start)
	w := World(v, opts.World, seed, clock)
	loader := runtime.LoaderFunc(func(_ context.Context, pl *plan.Plugin) (runtime.Instance, error) {
		switch pl.Kind {
		case plugins.KindTrainer:
			return sim.NewTrainer(w), nil
		case plugins.KindLLM:
			return sim.NewLLM(w, pl.Name), nil
		case plugins.KindBenchmark:
			return sim.NewBenchmark(w), nil
		}
		return nil, fmt.Errorf("plugin %s: no simulated plugin of kind %q", pl.Name, pl.Kind)
	})
	id := fmt.Sprintf("rehearsal-%s-%d", safe(v.Name), seed)
	ro := runtime.Options{ID: id, Dir: dir, Plugins: loader, Variant: v.Name, Clock: clock, Scratch: true}
	if opts.Dir == "" {
		// Nothing reads the journal of a rehearsal whose folder goes but
		// the rehearsal (its resume included): it stays in the process,
		// where an event costs an append instead of an SQLite insert.
		ro.Journal = journal.NewMemory()
	}
	rh := &Rehearsal{Seed: seed}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.Interrupt {
		// Stop at a call or run drawn uniformly over what the plan counts.
		total := 0.0
		for _, ph := range v.Phases {
			for _, c := range ph.Calls.LLM {
				total += c.Expected
			}
			for _, c := range ph.Calls.RealRuns {
				total += c.Expected
			}
		}
		at := 1 + int64(simUnit(seed)*math.Max(total, 1))
		var calls atomic.Int64
		w.OnCall = func() {
			if calls.Add(1) == at {
				cancel()
			}
		}
		rh.InterruptedAt = at
	}
	if opts.Dir == "" {
		// A rehearsal's folder (journal, batch files) goes as soon as it
		// is done: a hundred of them would hold gigabytes.
		defer os.RemoveAll(filepath.Join(dir, id))
	}
	p, err := criticPairs(p, v, dir, seed)
	if err != nil {
		return nil, err
	}
	res, err := runtime.Run(rctx, p, ro)
	if opts.Interrupt && res != nil && res.State == runtime.StateInterrupted && ctx.Err() == nil {
		w.OnCall = nil
		ro.Resume = true
		res, err = runtime.Run(ctx, nil, ro)
	} else if opts.Interrupt {
		rh.InterruptedAt = 0 // it ended before the point drawn
	}
	if err != nil && (res == nil || res.State != runtime.StateFinished) {
		return nil, err
	}
	rh.State, rh.Reason, rh.Totals, rh.Cuts = res.State, res.Reason, res.Totals, res.Cuts
	rh.WallHours = clock.Now().Sub(start).Hours()
	rh.CapsBroken = capsBroken(v.Budget, rh)
	return rh, nil
}

func safe(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() > 32 {
		return b.String()[:32]
	}
	return b.String()
}

// capsBroken lists the caps a rehearsal exceeded.
func capsBroken(c plan.Budget, rh *Rehearsal) []string {
	const eps = 1e-6
	t := rh.Totals
	var out []string
	if c.RealRuns > 0 && t.RealRuns > c.RealRuns {
		out = append(out, fmt.Sprintf("real_runs %d > %d", t.RealRuns, c.RealRuns))
	}
	if c.GPUHours > 0 && t.GPUHours > c.GPUHours+eps {
		out = append(out, fmt.Sprintf("gpu_hours %g > %g", t.GPUHours, c.GPUHours))
	}
	if c.USD > 0 && t.USD > c.USD+eps {
		out = append(out, fmt.Sprintf("usd %g > %g", t.USD, c.USD))
	}
	if c.WallHours > 0 && rh.WallHours > c.WallHours+eps {
		out = append(out, fmt.Sprintf("wall_hours %g > %g", rh.WallHours, c.WallHours))
	}
	return out
}

// figures sets every figure the rehearsals measured beside the estimate.
func figures(p *plan.Plan, v *plan.Variant, est *estimate.Report, rs []Rehearsal) []Figure {
	vals := map[string][]float64{}
	bounds := map[string]plan.Count{}
	var order []string
	add := func(name string, c plan.Count, got float64) {
		if _, ok := bounds[name]; !ok {
			order = append(order, name)
		}
		bounds[name] = c
		vals[name] = append(vals[name], got)
	}
	b := est.Breakdown
	for _, ev := range est.Variants {
		if ev.Name == v.Name {
			b = ev.Breakdown
		}
	}
	for i := range rs {
		t := &rs[i].Totals
		for _, row := range runcompare.Rows(p, v.Name, t) {
			add(row.Figure, plan.Count{Low: row.Low, Expected: row.Expected, High: row.High}, row.Measured)
		}
		// The estimate's other totals and role figures.
		add("totals.usd_gpu", b.Totals.USDGPU, t.USD-t.LLMUSD)
		add("totals.usd_llm", b.Totals.USDLLM, t.LLMUSD)
		add("totals.wall_hours", b.Totals.WallHours, rs[i].WallHours)
		if t.Measured != nil {
			tokens := 0.0
			for _, name := range sortedKeys(b.Roles) {
				var mr runtime.MeasuredRole
				if m := t.Measured.Roles[name]; m != nil {
					mr = *m
				}
				er := b.Roles[name]
				add("roles."+name+".tokens_in", er.TokensIn, float64(mr.TokensIn))
				add("roles."+name+".tokens_out", er.TokensOut, float64(mr.TokensOut))
				add("roles."+name+".usd", er.USD, mr.USD)
				tokens += float64(mr.TokensIn + mr.TokensOut)
			}
			add("totals.llm_tokens", b.Totals.LLMTokens, tokens)
		}
	}
	out := make([]Figure, 0, len(order))
	for _, name := range order {
		xs := slices.Clone(vals[name])
		slices.Sort(xs)
		c := bounds[name]
		f := Figure{Name: name, Estimate: c, Min: xs[0], Max: xs[len(xs)-1], Median: median(xs), Values: vals[name]}
		tol := 1e-6 * max(1, math.Abs(c.High))
		f.Outside = f.Min < c.Low-tol || f.Max > c.High+tol
		out = append(out, f)
	}
	return out
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// simulatedBuilds is p with its builds simulated: a source-mode task's
// seed program dropped, so a candidate is built by the simulated builder
// (a simulated build failure standing for a patch that does not apply or
// a build that fails) and never by git, a worktree or a build command.
// A task-suite baseline still to fill (plan.Missing) is the simulated
// world's, 1: a rehearsal needs no file of the user's, as the estimate
// does not. p itself is returned when no task has a source or a missing
// baseline, and is never changed.
func simulatedBuilds(p *plan.Plan) (*plan.Plan, error) {
	has := false
	for _, v := range p.Variants {
		for _, e := range v.Envs {
			for _, t := range e.Tasks {
				has = has || t.Source != nil || missingBaseline(t)
			}
		}
	}
	if !has {
		return p, nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	cp := new(plan.Plan)
	if err := json.Unmarshal(b, cp); err != nil {
		return nil, err
	}
	for _, v := range cp.Variants {
		for _, e := range v.Envs {
			for _, t := range e.Tasks {
				t.Source = nil
				if missingBaseline(t) {
					one := 1.0
					t.Baseline = &one
				}
			}
		}
	}
	return cp, nil
}

// missingBaseline reports whether t's baseline is a placeholder still to
// fill.
func missingBaseline(t *plan.Task) bool {
	for _, m := range t.Missing {
		if m.Field == "baseline" {
			return true
		}
	}
	return false
}
