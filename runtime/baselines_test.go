package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime/journal"

	"github.com/google/go-cmp/cmp"
)

// baselinePlan is lm2lmPlan with no declared baseline for t0, t1 and h0:
// the plan's baselines phase measures them, one real run each, before the
// seed records (17 real runs in all).
func baselinePlan() *plan.Plan {
	p := lm2lmPlan()
	v := p.Variants[0]
	var refs []plan.TaskRef
	for _, t := range v.Envs[0].Tasks {
		if t.Name != "t2" {
			t.Baseline = nil
			refs = append(refs, plan.TaskRef{Env: "tiny", Task: t.Name})
		}
	}
	v.Phases = append([]*plan.Phase{{Name: plan.PhaseBaselines, Kind: plan.PhaseBaselines, Baselines: &plan.BaselinesBody{Tasks: refs}, Calls: plan.Calls{RealRuns: runs(3)}}}, v.Phases...)
	v.Budget.RealRuns += 3
	p.Name = "mini-lm2lm-baselines"
	return p
}

func TestBaselinesPhase(t *testing.T) {
	dir := t.TempDir()
	tr := newFakeTrainer()
	res, err := runPlan(t, baselinePlan(), dir, "a", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.RealRuns != 17 || tr.started() != 17 {
		t.Errorf("real runs %d, trainer starts %d; want 17 (3 baselines + 14)", res.Totals.RealRuns, tr.started())
	}
	// The baselines phase comes first, and runs exactly the listed tasks.
	starts := events(t, dir, "a", journal.KindPhaseStart)
	if len(starts) == 0 || starts[0].Key != plan.PhaseBaselines {
		t.Fatalf("first phase = %v, want %s", starts, plan.PhaseBaselines)
	}
	j, err := journal.Open(filepath.Join(dir, "a", JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var base []string
	measured := 0
	for i, run := range j.Runs() {
		if strings.HasPrefix(run.Key, "baseline/") {
			if i >= 3 {
				t.Errorf("baseline run %s is run %d, after a run that needs it", run.Key, i)
			}
			base = append(base, run.Key)
			continue
		}
		// Every later run carries its task's baseline: declared (t2) or
		// measured by the fake trainer's unedited run (1.5).
		if b := run.Reservation.Baseline; b == nil || *b != 1.5 {
			t.Errorf("run %s: reservation baseline %v, want 1.5", run.Key, b)
		} else if run.Reservation.Task != "t2" {
			measured++
		}
	}
	if got := strings.Join(base, " "); got != "baseline/tiny/t0 baseline/tiny/t1 baseline/tiny/h0" {
		t.Errorf("baseline runs = %s", got)
	}
	if measured == 0 {
		t.Error("no run used a measured baseline")
	}
}

// A run interrupted during or after the baselines phase resumes to the
// totals of an uninterrupted run, and runs no baseline twice (the journal
// keys baseline/ENV/TASK are the resume keys).
func TestBaselinesResume(t *testing.T) {
	dir := t.TempDir()
	want, err := runPlan(t, baselinePlan(), dir, "ref", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, stopAt := range []int{1, 3, 5} {
		tr := newFakeTrainer()
		ctx, cancel := context.WithCancel(context.Background())
		tr.onStart = func(n int) {
			if n == stopAt {
				cancel()
			}
		}
		id := fmt.Sprintf("cut%d", stopAt)
		if _, err := Run(ctx, baselinePlan(), Options{ID: id, Dir: dir, Plugins: &testLoader{trainer: tr}}); err == nil {
			t.Fatalf("%s: run not interrupted", id)
		}
		tr.onStart = nil
		got, err := runPlan(t, nil, dir, id, &testLoader{trainer: tr}, true)
		if err != nil {
			t.Fatalf("%s resume: %v", id, err)
		}
		if d := cmp.Diff(want.Totals, got.Totals); d != "" {
			t.Errorf("%s: resumed totals differ (-uninterrupted +resumed):\n%s", id, d)
		}
		if d := tr.doubleStarts(); len(d) > 0 {
			t.Errorf("%s: runs started twice: %v", id, d)
		}
	}
}

// The runtime never starts a baseline run the plan did not count: a task
// without a baseline that the baselines phase does not list fails the run
// before any real run of it starts.
func TestUncountedBaselineRefused(t *testing.T) {
	for _, withPhase := range []bool{false, true} {
		p := baselinePlan()
		v := p.Variants[0]
		if withPhase {
			// The phase lists t0 and t1 but not h0, which evaluation runs.
			v.Phases[0].Baselines.Tasks = v.Phases[0].Baselines.Tasks[:2]
			v.Phases[0].Calls.RealRuns = runs(2)
		} else {
			v.Phases = v.Phases[1:]
		}
		tr := newFakeTrainer()
		_, err := runPlan(t, p, t.TempDir(), "a", &testLoader{trainer: tr}, false)
		if err == nil || !strings.Contains(err.Error(), "counts no baseline run") {
			t.Fatalf("with phase %v: err = %v, want a refusal of an uncounted baseline", withPhase, err)
		}
		tr.mu.Lock()
		for id := range tr.starts {
			if strings.HasPrefix(id, "baseline/") && !(withPhase && id != "baseline/tiny/h0") {
				t.Errorf("with phase %v: started %s, which the plan does not count", withPhase, id)
			}
		}
		tr.mu.Unlock()
	}
}

// A baseline that gets no run fails the run with its real cause: the cap
// and what is held back of it, never a hint to declare the baseline as if
// the spec were wrong. The plan here holds back 14 of 15 real runs for the
// phases after the baselines (a plan without hold_back, as before it
// existed), so the second baseline gets none.
func TestBaselineFailureNamesTheCap(t *testing.T) {
	p := baselinePlan()
	p.Variants[0].Budget.RealRuns = 15
	_, err := runPlan(t, p, t.TempDir(), "a", &testLoader{trainer: newFakeTrainer()}, false)
	want := "task tiny/t1: the baseline run got no run: the real-run cap of 15 left no run for it (1 used, 14 held back for later phases)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to say %q", err, want)
	}
	if strings.Contains(err.Error(), "did not finish") {
		t.Errorf("err = %v: it blames the spec for a cap", err)
	}
}
