package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime/journal"

	"github.com/google/go-cmp/cmp"
)

func runPlan(t *testing.T, p *plan.Plan, dir, id string, l Loader, resume bool) (*Result, error) {
	t.Helper()
	return Run(context.Background(), p, Options{ID: id, Dir: dir, Plugins: l, Resume: resume})
}

func events(t *testing.T, dir, id, kind string) []journal.Event {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, id, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ev, err := j.Events(kind)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestLM2LMRun(t *testing.T) {
	dir := t.TempDir()
	tr := newFakeTrainer()
	res, err := runPlan(t, lm2lmPlan(), dir, "a", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	tot := res.Totals
	if tot.RealRuns != 14 || tot.Finished+tot.Infeasible != 14 {
		t.Errorf("real runs = %d (finished %d, infeasible %d), want 14", tot.RealRuns, tot.Finished, tot.Infeasible)
	}
	if tr.started() != 14 {
		t.Errorf("trainer started %d runs, want 14", tr.started())
	}
	if d := tr.doubleStarts(); len(d) > 0 {
		t.Errorf("runs started twice: %v", d)
	}
	if tot.Steps != 8 || tot.Candidates != 4*4*4 {
		t.Errorf("steps %d candidates %d, want 8 and 64", tot.Steps, tot.Candidates)
	}
	if tot.PolicyUpdates == 0 {
		t.Error("no policy update")
	}
	// 14 real runs at 0.5 CPU-hours and $2 an hour, plus LLM dollars.
	if tot.GPUHours != 7 || tot.USD <= 14 || tot.LLMUSD <= 0 {
		t.Errorf("gpu-hours %v usd %v llm %v", tot.GPUHours, tot.USD, tot.LLMUSD)
	}
	cal := events(t, dir, "a", journal.KindCalibration)
	if len(cal) != 2 {
		t.Fatalf("calibration rounds = %d, want 2", len(cal))
	}
	for _, e := range cal {
		var f CalibrationFigures
		json.Unmarshal(e.Data, &f)
		if f.Runs != 3 || len(f.Points) == 0 {
			t.Errorf("calibration %+v", f)
		}
	}
	if ev := events(t, dir, "a", journal.KindEval); len(ev) != 1 {
		t.Errorf("eval events = %d", len(ev))
	}
	if ev := events(t, dir, "a", journal.KindPolicy); len(ev) != tot.PolicyUpdates {
		t.Errorf("policy events %d != updates %d", len(ev), tot.PolicyUpdates)
	}
}

func TestSameSeedSameTotals(t *testing.T) {
	dir := t.TempDir()
	a, err := runPlan(t, lm2lmPlan(), dir, "a", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runPlan(t, lm2lmPlan(), dir, "b", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a.Totals, b.Totals); d != "" {
		t.Errorf("two runs with one seed differ (-a +b):\n%s", d)
	}
	p := lm2lmPlan()
	p.Variants[0].Seed = 8
	c, err := runPlan(t, p, dir, "c", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(a.Totals, c.Totals) {
		t.Error("another seed gave identical totals")
	}
}

// TestInterruptResume cancels a run after its n-th real run start, resumes
// it, and checks the totals equal an uninterrupted run's and that no run
// was executed twice on the trainer's side.
func TestInterruptResume(t *testing.T) {
	for _, p := range []func() *plan.Plan{lm2lmPlan, evolvePlan, criticGRPOPlan} {
		dir := t.TempDir()
		want, err := runPlan(t, p(), dir, "ref", &testLoader{trainer: newFakeTrainer()}, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, stopAt := range []int{1, 4, 9} {
			tr := newFakeTrainer()
			ctx, cancel := context.WithCancel(context.Background())
			tr.onStart = func(n int) {
				if n == stopAt {
					cancel()
				}
			}
			id := fmt.Sprintf("cut%d", stopAt)
			_, err := Run(ctx, p(), Options{ID: id, Dir: dir, Plugins: &testLoader{trainer: tr}})
			if err == nil {
				t.Fatalf("%s: run not interrupted", id)
			}
			tr.onStart = nil
			got, err := runPlan(t, nil, dir, id, &testLoader{trainer: tr}, true)
			if err != nil {
				t.Fatalf("%s resume: %v", id, err)
			}
			if d := cmp.Diff(want.Totals, got.Totals); d != "" {
				t.Errorf("%s %s: resumed totals differ (-uninterrupted +resumed):\n%s", p().Name, id, d)
			}
			if d := tr.doubleStarts(); len(d) > 0 {
				t.Errorf("%s %s: runs started twice: %v", p().Name, id, d)
			}
		}
	}
}

func TestBudgetReserveConcurrent(t *testing.T) {
	b := NewBudget(plan.Budget{RealRuns: 100, GPUHours: 1000, USD: 1e6})
	var ok atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := b.Reserve(1, 1); err == nil {
					ok.Add(1)
				} else if !errors.Is(err, ErrBudget) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 100 || b.Spent().RealRuns != 100 {
		t.Errorf("reserved %d (spent %d), want exactly 100", ok.Load(), b.Spent().RealRuns)
	}
	// GPU-hour and dollar caps bind the same way.
	for _, caps := range []plan.Budget{{GPUHours: 10}, {USD: 10}} {
		b := NewBudget(caps)
		var n atomic.Int64
		var wg sync.WaitGroup
		for g := 0; g < 32; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					if b.Reserve(0.75, 0.75) == nil {
						n.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if n.Load() != 13 {
			t.Errorf("caps %+v: reserved %d, want 13", caps, n.Load())
		}
	}
}

// TestRealRunsNeverExceedCap runs more real runs than the cap allows at
// high concurrency: the trainer sees exactly the cap.
func TestRealRunsNeverExceedCap(t *testing.T) {
	for _, caps := range []plan.Budget{{RealRuns: 37}, {GPUHours: 18.5}, {USD: 37}} {
		p := lm2lmPlan()
		v := p.Variants[0]
		v.Executor.Concurrency = 32
		v.Phases = []*plan.Phase{{Name: "seed_records", Kind: plan.PhaseSeedRecords, SeedRecords: seedBody(200), Calls: plan.Calls{RealRuns: runs(200)}}}
		v.Budget = caps
		v.Roles[0].PriceIn, v.Roles[0].PriceOut = 0, 0
		v.Roles[2].PriceIn, v.Roles[2].PriceOut = 0, 0
		tr := newFakeTrainer()
		res, err := runPlan(t, p, t.TempDir(), "cap", &testLoader{trainer: tr}, false)
		if err != nil {
			t.Fatal(err)
		}
		if tr.started() != 37 || res.Totals.RealRuns != 37 {
			t.Errorf("caps %+v: trainer started %d, counted %d, want 37", caps, tr.started(), res.Totals.RealRuns)
		}
	}
}

func TestPluginCrashRestarts(t *testing.T) {
	tr := newFakeTrainer()
	tr.failWait.Store(2)
	l := &testLoader{trainer: tr, failAt: map[int64]bool{5: true, 40: true}}
	res, err := runPlan(t, lm2lmPlan(), t.TempDir(), "crash", l, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.RealRuns != 14 {
		t.Errorf("real runs %d, want 14", res.Totals.RealRuns)
	}
	if d := tr.doubleStarts(); len(d) > 0 {
		t.Errorf("runs started twice: %v", d)
	}
	// Two LLM deaths far apart restart the LLM twice; concurrent trainer
	// failures of one process restart it at least once.
	if l.lOpens.Load() != 3 || l.tOpens.Load() < 2 {
		t.Errorf("LLM opened %d times (want 3), trainer %d (want >= 2)", l.lOpens.Load(), l.tOpens.Load())
	}
	ref, err := runPlan(t, lm2lmPlan(), t.TempDir(), "ref", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	// A plugin that dies in a call reports no usage, and a provider may
	// have billed the request it sent: each call that failed on a dead
	// plugin (two deaths, and any call in flight on it then) is charged
	// one attempt at the role's high tokens (20,000 in, 2,000 out at $1
	// and $2 per million), and nothing else changes.
	var in, out int
	var usd float64
	for name, r := range res.Totals.Measured.Roles {
		c := ref.Totals.Measured.Roles[name]
		in, out, usd = in+r.TokensIn-c.TokensIn, out+r.TokensOut-c.TokensOut, usd+r.USD-c.USD
		r.TokensIn, r.TokensOut, r.USD = c.TokensIn, c.TokensOut, c.USD
	}
	k := in / 20000
	if k < 2 || in != k*20000 || out != k*2000 || math.Abs(usd-float64(k)*0.024) > 1e-9 || math.Abs(res.Totals.LLMUSD-ref.Totals.LLMUSD-float64(k)*0.024) > 1e-9 {
		t.Errorf("the failed calls were charged %d tokens in, %d out, $%g ($%g in the totals), want k x (20000, 2000, $0.024), k >= 2", in, out, usd, res.Totals.LLMUSD-ref.Totals.LLMUSD)
	}
	res.Totals.USD, res.Totals.LLMUSD = ref.Totals.USD, ref.Totals.LLMUSD
	if d := cmp.Diff(ref.Totals, res.Totals); d != "" {
		t.Errorf("crashes changed the totals (-clean +crashed):\n%s", d)
	}
}

func TestPluginThatStaysDeadFailsTheRun(t *testing.T) {
	fail := map[int64]bool{}
	for i := int64(1); i < 100; i++ {
		fail[i] = true
	}
	_, err := runPlan(t, lm2lmPlan(), t.TempDir(), "dead", &testLoader{trainer: newFakeTrainer(), failAt: fail}, false)
	if err == nil {
		t.Fatal("run with a dead LLM succeeded")
	}
}

func TestEvolution(t *testing.T) {
	dir := t.TempDir()
	tr := newFakeTrainer()
	res, err := runPlan(t, evolvePlan(), dir, "evo", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.RealRuns != 18 {
		t.Errorf("real runs %d, want 18 (3 tasks x 2 islands x 3 rounds)", res.Totals.RealRuns)
	}
	// 3 tasks x 2 islands x 3 rounds x 4 ideas: each proposed and built;
	// each feasible one summarized once and critiqued 5 times.
	byRole := map[string]int{}
	for _, e := range events(t, dir, "evo", journal.KindCall) {
		var c callRecord
		json.Unmarshal(e.Data, &c)
		byRole[c.Role]++
	}
	if byRole["proposer"] != 72 || byRole["builder"] != 72 || byRole["critic"] != 5*byRole["summarizer"] || byRole["summarizer"] < 60 {
		t.Errorf("calls by role %v", byRole)
	}
	// A parent is replaced only by a better child: island gains never fall.
	last := map[string][]float64{}
	for _, e := range events(t, dir, "evo", journal.KindStep) {
		var f RoundFigures
		json.Unmarshal(e.Data, &f)
		if prev, ok := last[f.Task]; ok {
			for i := range prev {
				if f.Gains[i] < prev[i] {
					t.Errorf("%s round %d island %d: gain fell %v -> %v", f.Task, f.Round, i, prev[i], f.Gains[i])
				}
			}
		}
		last[f.Task] = f.Gains
	}
}

func TestCriticGRPOUntilBudget(t *testing.T) {
	tr := newFakeTrainer()
	res, err := runPlan(t, criticGRPOPlan(), t.TempDir(), "cg", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.RealRuns > 10 || tr.started() > 10 {
		t.Errorf("real runs %d (trainer %d) over the cap of 10", res.Totals.RealRuns, tr.started())
	}
	if res.Totals.Steps < 1 {
		t.Error("no step ran")
	}
	// Screening rewards more candidates than it verifies.
	if res.Totals.Candidates <= res.Totals.RealRuns {
		t.Errorf("candidates %d <= real runs %d", res.Totals.Candidates, res.Totals.RealRuns)
	}
}

func TestResumeUnknownRunAndExistingID(t *testing.T) {
	dir := t.TempDir()
	if _, err := runPlan(t, nil, dir, "nope", &testLoader{trainer: newFakeTrainer()}, true); err == nil {
		t.Error("resume of an unknown run succeeded")
	}
	if _, err := runPlan(t, lm2lmPlan(), dir, "x", &testLoader{trainer: newFakeTrainer()}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := runPlan(t, lm2lmPlan(), dir, "x", &testLoader{trainer: newFakeTrainer()}, false); err == nil {
		t.Error("a second run with an existing id succeeded")
	}
	if _, err := runPlan(t, lm2lmPlan(), dir, "../x", &testLoader{trainer: newFakeTrainer()}, false); err == nil {
		t.Error("a run id with a path separator was accepted")
	}
}

func TestStatusAndReport(t *testing.T) {
	dir := t.TempDir()
	if _, err := runPlan(t, lm2lmPlan(), dir, "s1", &testLoader{trainer: newFakeTrainer()}, false); err != nil {
		t.Fatal(err)
	}
	st, err := ReadStatus(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != StateFinished || st.RealRuns != 14 || st.Finished != 14 || st.InFlight != 0 || st.Totals == nil || st.Phase != "evaluation" {
		t.Errorf("status %+v", st)
	}
	rep, err := LoadReport(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 8 || len(rep.Calibration) != 2 || len(rep.Burn) != 14 || len(rep.Best) == 0 || len(rep.Evaluation) != 1 || len(rep.Rounds) != 0 {
		t.Errorf("report: %d steps, %d calibrations, %d burn, %d best, %d evals, %d rounds",
			len(rep.Steps), len(rep.Calibration), len(rep.Burn), len(rep.Best), len(rep.Evaluation), len(rep.Rounds))
	}
	for i := 1; i < len(rep.Best); i++ {
		if rep.Best[i].Gain > rep.Best[i-1].Gain {
			t.Error("best proposals not sorted by gain")
		}
	}
	list, err := ListRuns(dir)
	if err != nil || len(list) != 1 || list[0].ID != "s1" {
		t.Errorf("list = %v, %v", list, err)
	}
	if _, err := ReadStatus(dir, "nope"); err == nil {
		t.Error("status of an unknown run")
	}
}

// TestFailedCallIsMarkedAndTheRunGoesOn fails one proposer call on every
// attempt (the plugin dies each time it is restarted for it): the call is
// marked failed, its candidate gets the infeasible reward, and the run
// finishes.
func TestFailedCallIsMarkedAndTheRunGoesOn(t *testing.T) {
	dir := t.TempDir()
	l := &testLoader{trainer: newFakeTrainer(), failAt: map[int64]bool{30: true, 31: true, 32: true}}
	p := lm2lmPlan()
	for _, ro := range p.Variants[0].Roles {
		ro.Concurrency = 1 // one call at a time, so calls 30-32 are one call's attempts
	}
	res, err := runPlan(t, p, dir, "f", l, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != StateFinished || res.Totals.RealRuns != 14 {
		t.Errorf("state %s, real runs %d", res.State, res.Totals.RealRuns)
	}
	failed := 0
	for _, e := range events(t, dir, "f", journal.KindCall) {
		var c callRecord
		json.Unmarshal(e.Data, &c)
		if c.Failed != "" {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d calls journaled as failed, want 1", failed)
	}
}

func TestWallHoursCap(t *testing.T) {
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Budget = plan.Budget{WallHours: 0.4} // every run takes 0.5 hours: none fits
	tr := newFakeTrainer()
	res, err := runPlan(t, p, t.TempDir(), "w", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if tr.started() != 0 || res.Totals.RealRuns != 0 {
		t.Errorf("%d runs started under a wall-time cap shorter than one run", tr.started())
	}
}

// A run is held against the GPU-hour cap at the high figure of its
// environment's hours per run, so the cap holds however long runs take
// within the assumption: with runs of 0.1 to 2 hours and a cap of 18.5
// GPU-hours, 9 runs start, not the 37 their expected half hour buys.
func TestCapsHoldAtHighHours(t *testing.T) {
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Envs[0].Hours = plan.Count{Low: 0.1, Expected: 0.5, High: 2}
	v.Envs[0].GPUHours, v.Envs[0].TimeLimitSeconds = v.Envs[0].Hours, 7200
	v.Phases = []*plan.Phase{{Name: "seed_records", Kind: plan.PhaseSeedRecords, SeedRecords: seedBody(40), Calls: plan.Calls{RealRuns: runs(40)}}}
	v.Budget = plan.Budget{GPUHours: 18.5}
	tr := newFakeTrainer() // each run takes its limit: 2 hours
	res, err := runPlan(t, p, t.TempDir(), "high", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if tr.started() != 9 || res.Totals.RealRuns != 9 || res.Totals.GPUHours != 18 {
		t.Errorf("started %d, counted %d runs and %v GPU-hours; want 9 runs held at 2 GPU-hours each", tr.started(), res.Totals.RealRuns, res.Totals.GPUHours)
	}
}

// No run starts that could end after budget.wall_hours at the high figure
// of its hours per run, even when the expected figure would fit.
func TestWallCapAtHighHours(t *testing.T) {
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Envs[0].Hours = plan.Count{Low: 0.1, Expected: 0.5, High: 2}
	v.Envs[0].GPUHours = v.Envs[0].Hours
	v.Phases = []*plan.Phase{{Name: "seed_records", Kind: plan.PhaseSeedRecords, SeedRecords: seedBody(4), Calls: plan.Calls{RealRuns: runs(4)}}}
	v.Budget = plan.Budget{WallHours: 1}
	tr := newFakeTrainer()
	res, err := runPlan(t, p, t.TempDir(), "wall", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if tr.started() != 0 || res.Totals.RealRuns != 0 {
		t.Errorf("started %d runs (counted %d); a run of up to 2 hours cannot fit a 1-hour cap", tr.started(), res.Totals.RealRuns)
	}
}
