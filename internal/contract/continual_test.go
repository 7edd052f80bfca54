package contract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
)

// continualRun is the uninterrupted run of the continual arm of
// specs/laptop/critic-continual.hcl, its plan and the arm's index.
func continualRun(t *testing.T) (*plan.Plan, int, *runtime.Result, string) {
	t.Helper()
	return runShared(t, filepath.Join(specsDir(t), "laptop", "critic-continual.hcl"), "enabled=true")
}

// TestContinualCriticRunsWithinItsEstimate runs both arms of the laptop
// frozen/continual ablation, the whole pipeline each: every count stays
// inside the estimate, each arm trains its critic, benches it (its
// figures reported, its calls the plan's) and runs its loop, the
// continual arm makes SDFT and T-GRPO updates, at most the plan's, and
// the frozen arm none.
func TestContinualCriticRunsWithinItsEstimate(t *testing.T) {
	t.Parallel()
	p, vi, res, dir := continualRun(t)
	evo := p.Variants[vi].PhaseOf(plan.PhaseEvolution)
	if evo == nil || evo.Evolution.Continual == nil || evo.Evolution.Continual.Training.SFT == nil || evo.Evolution.Continual.Training.GRPO == nil {
		t.Fatalf("the continual arm's loop has no continual critic: %+v", evo)
	}
	cc, ct := evo.Evolution.Continual, evo.Evolution.Continual.Training
	checkResult(t, p, vi, res)
	checkPipeline(t, p.Variants[vi], res, dir)
	m := res.Totals.Measured.CriticTrainings[ct.Name]
	high := int(ct.SFT.Updates.High + ct.GRPO.Updates.High)
	if m == nil || m.Updates < 1 || m.Updates > high || m.GRPOSteps < 1 || m.GRPOSteps > int(ct.GRPO.Updates.High) {
		t.Fatalf("continual critic measured %+v: want 1 to %d updates and 1 to %v T-GRPO steps", m, high, ct.GRPO.Updates.High)
	}
	// Both arms train the critic alike first; the continual arm's teacher
	// is asked again during the loop, at most sdft_pairs a round.
	cont := res.Totals.Measured.Roles["teacher"]
	res, dir = checkRun(t, p, 1-vi)
	checkPipeline(t, p.Variants[1-vi], res, dir)
	if _, ok := res.Totals.Measured.CriticTrainings[ct.Name]; ok {
		t.Errorf("the frozen arm adapted its critic: %+v", res.Totals.Measured.CriticTrainings)
	}
	if _, ok := res.Totals.Measured.CriticTrainings["critic"]; !ok {
		t.Errorf("the frozen arm did not train its critic first: %+v", res.Totals.Measured.CriticTrainings)
	}
	frozen := res.Totals.Measured.Roles["teacher"]
	if cont == nil || frozen == nil || cont.Calls <= frozen.Calls || float64(cont.Calls-frozen.Calls) > ct.SFT.Updates.High*float64(cc.SDFTPairs) {
		t.Errorf("teacher calls %+v (continual) and %+v (frozen): want the continual arm's 1 to %g more", cont, frozen, ct.SFT.Updates.High*float64(cc.SDFTPairs))
	}
}

// checkPipeline checks that run "c" in dir of variant v ran its whole
// pipeline: the critic training, the bench (its figures in the report,
// every critic's, and exactly the calls its phase was priced at) and the
// evolution loop's steps.
func checkPipeline(t *testing.T, v *plan.Variant, res *runtime.Result, dir string) {
	t.Helper()
	var bench *plan.Phase
	for _, ph := range v.Phases {
		if ph.Kind == plan.PhaseCriticEval {
			bench = ph
		}
	}
	training := v.PhaseOf(plan.PhaseCriticTraining)
	if bench == nil || training == nil || len(v.Loops) == 0 {
		t.Fatalf("variant %s: want a critic training, a bench and a loop: %d phases", v.Name, len(v.Phases))
	}
	if m := res.Totals.Measured.CriticTrainings[training.CriticTraining.Name]; m == nil || m.Updates < 1 {
		t.Errorf("variant %s: the critic training made no update: %+v", v.Name, m)
	}
	if l := res.Totals.Measured.Loops[v.Loops[0].Name]; l == nil || l.Steps < 1 {
		t.Errorf("variant %s: the loop ran no step: %+v", v.Name, l)
	}
	rep, err := runtime.LoadReport(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	ce := bench.CriticEval
	if len(rep.CriticEvals) != 1 || rep.CriticEvals[0].Phase != bench.Name || rep.CriticEvals[0].Examples != ce.Examples || len(rep.CriticEvals[0].Critics) != len(ce.Critics) {
		t.Fatalf("variant %s: bench figures %+v, want %s on %d examples", v.Name, rep.CriticEvals, bench.Name, ce.Examples)
	}
	for _, c := range rep.CriticEvals[0].Critics {
		if len(c.Metrics) != max(len(ce.K), 1) || len(c.Routing) != len(ce.Thresholds) {
			t.Errorf("variant %s: critic %s figures %+v", v.Name, c.Name, c)
		}
	}
	j, err := journal.OpenReadOnly(filepath.Join(dir, "c", runtime.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	evs, err := j.Events(journal.KindCall)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, e := range evs {
		if strings.HasPrefix(e.Key, bench.Name+"/") {
			keys[e.Key] = true
		}
	}
	calls := len(keys)
	want := 0.0
	for _, c := range bench.Calls.LLM {
		want += c.High
	}
	if calls < 1 || float64(calls) != want {
		t.Errorf("variant %s: the bench made %d calls, priced at %g", v.Name, calls, want)
	}
}

// TestContinualCriticResumes stops the continual arm mid-loop and resumes
// it: its updates and the critic it ends with are the uninterrupted run's.
func TestContinualCriticResumes(t *testing.T) {
	t.Parallel()
	// The uninterrupted run is TestContinualCriticRunsWithinItsEstimate's.
	p, vi, res, whole := continualRun(t)
	v := p.Variants[vi]
	name := v.PhaseOf(plan.PhaseEvolution).Evolution.Continual.Training.Name
	want, wantState := *res.Totals.Measured.CriticTrainings[name], criticState(t, whole)
	dir := t.TempDir()
	runCut(t, p, runtime.Options{ID: "c", Dir: dir, Variant: v.Name}, 2000) // of about 3,800 calls
	res, err := runtime.Run(context.Background(), nil, runtime.Options{ID: "c", Dir: dir, Plugins: loader(), Resume: true, Variant: v.Name})
	if err != nil || res.State != runtime.StateFinished {
		t.Fatalf("resume: %v", err)
	}
	if got := *res.Totals.Measured.CriticTrainings[name]; got != want {
		t.Errorf("resumed: %+v, uninterrupted: %+v", got, want)
	}
	if got := criticState(t, dir); got != wantState {
		t.Errorf("resumed: the critic ends as %s, uninterrupted %s", got, wantState)
	}
}

// continualUpdateRounds are the global rounds before which run "c" in
// dir made (or journaled) a continual SDFT or T-GRPO update.
func continualUpdateRounds(t *testing.T, dir, name string) map[int]bool {
	t.Helper()
	j, err := journal.OpenReadOnly(filepath.Join(dir, "c", runtime.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	evs, err := j.Events(journal.KindPolicy)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, e := range evs {
		var g int
		rest, ok := strings.CutPrefix(e.Key, "critic_training/"+name+"/")
		switch {
		case !ok || strings.HasSuffix(rest, "/reserve"):
		case strings.HasPrefix(rest, "sdft/"):
			if _, err := fmt.Sscanf(rest, "sdft/%d", &g); err == nil {
				out[g] = true
			}
		case strings.HasPrefix(rest, "grpo/"):
			if _, err := fmt.Sscanf(rest, "grpo/%d", &g); err == nil {
				out[g+1] = true // grpo/t is the update before round t + 1
			}
		}
	}
	return out
}

// Each task adapts from the trained critic (scope task, the default): no
// update comes before a task's first round (global rounds 0, 6, 12, 18 of
// the laptop spec's 4 tasks of 6 rounds), and T-GRPO's come before each
// task's rounds 2 and 4. With scope loop, one adapter crosses the tasks
// and rounds count across them: updates come before a task's first
// round too, inside the plan's larger estimate.
func TestContinualCriticScopes(t *testing.T) {
	t.Parallel()
	p, vi, _, dir := continualRun(t)
	cc := p.Variants[vi].PhaseOf(plan.PhaseEvolution).Evolution.Continual
	perTask := continualUpdateRounds(t, dir, cc.Training.Name)
	for _, g := range []int{0, 6, 12, 18} {
		if perTask[g] {
			t.Errorf("scope task: an update before global round %d, a task's first: %v", g, perTask)
		}
	}
	if len(perTask) == 0 {
		t.Fatal("scope task: no continual update")
	}
	path := writeVariant(t, filepath.Join(specsDir(t), "laptop", "critic-continual.hcl"),
		[2]string{"    teacher    = role.teacher\n", "    scope      = \"loop\"\n    teacher    = role.teacher\n"})
	data, err := os.ReadFile(filepath.Join(specsDir(t), "laptop", "data", "critic-pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(filepath.Dir(path), "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "data", "critic-pairs.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	lp, ds := compile(t, path)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	li := -1
	var lc *plan.CriticContinual
	for i, v := range lp.Variants {
		if evo := v.PhaseOf(plan.PhaseEvolution); evo != nil && evo.Evolution.Continual != nil {
			li, lc = i, evo.Evolution.Continual
		}
	}
	if lc == nil || lc.Scope != plan.ContinualLoop || lc.Training.SFT.Updates.High <= cc.Training.SFT.Updates.High {
		t.Fatalf("scope loop: %+v, not above scope task's SDFT updates %+v", lc, cc.Training.SFT.Updates)
	}
	_, ldir := checkRun(t, lp, li)
	across := continualUpdateRounds(t, ldir, lc.Training.Name)
	if !across[6] && !across[12] && !across[18] {
		t.Errorf("scope loop: no update before a later task's first round: %v", across)
	}
}
