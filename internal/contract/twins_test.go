package contract

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
	"github.com/assay-lang/assay/runtime/pairs"
)

// codeTwins are the code-change laptop twins of specs/laptop/code/ and
// the tasks each must leave a best program for: the train tasks where
// training verifies candidates, the held-out ones where evaluation does.
var codeTwins = map[string][]string{
	"verify-all.hcl":    {"friedman", "moons", "sine", "spirals"},
	"critic-grpo.hcl":   {"friedman", "moons", "sine", "spirals"},
	"critic-only.hcl":   {"friedman", "moons"},
	"lm2lm.hcl":         {"friedman", "moons", "sine", "spirals"},
	"openevolve.hcl":    {"sine", "spirals"},
	"critic-evolve.hcl": {"sine", "spirals"},
}

// trainsBest is the twin whose best program of spirals the test checks
// out and trains.
const trainsBest = "verify-all.hcl"

// TestCodeTwinsRunWithinTheirEstimates runs the code-change laptop twins
// end to end through the real runtime, on examples/suite imported where it
// is (a directory of this repository, not a repository's top): every
// candidate is a patch the offline LLM wrote, built with go vet in a git
// worktree and committed under refs/assay/c/, touching only the editable
// files; every count stays inside the estimate; each task left a best
// program ref, and one of them checks out and trains. All six run with
// ASSAY_REHEARSE_ALL=1 (as CI sets it; about 80 s on two cores), else two
// of them, one per kind of loop.
func TestCodeTwinsRunWithinTheirEstimates(t *testing.T) {
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	names := make([]string, 0, len(codeTwins))
	for name := range codeTwins {
		if !rehearseAll && name != trainsBest && name != "openevolve.hcl" {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) < len(codeTwins) {
		t.Logf("running %v of the code twins; all of them: ASSAY_REHEARSE_ALL=1", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := compileTwin(t, filepath.Join(specsDir(t), "laptop", "code", name))
			res, dir := checkRun(t, p, 0)
			if tt := res.Totals; tt.RealRuns == 0 || tt.Finished+tt.Infeasible != tt.RealRuns {
				t.Errorf("real runs %d, finished %d, infeasible %d: want real runs, each ending with a result", tt.RealRuns, tt.Finished, tt.Infeasible)
			}
			repo := checkTwinRefs(t, p, res, codeTwins[name])
			runs := twinRuns(t, dir)
			checkArmsMeasureTheirPatches(t, repo, runs, p.Variants[0].PhaseOf(plan.PhaseEvaluation) != nil)
			checkPairsDescribeTheirPatches(t, dir)
			if name == trainsBest {
				trainBest(t, p, repo, "spirals", runs)
			}
		})
	}
}

// compileTwin compiles a twin as the command line does: its import and
// repositories checked.
func compileTwin(t *testing.T, path string) *plan.Plan {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p, ds := compiler.Compile(s, compiler.Options{CheckRepository: gitrepo.Check, CheckImport: func(dir string, ex []string, over string) error {
		return gitrepo.CheckImport(gitrepo.ImportSource{Dir: dir, Exclude: ex, Overlay: over})
	}})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	suite, _ := filepath.Abs(filepath.Join(specsDir(t), "..", "examples", "suite"))
	for _, tk := range p.Variants[0].Envs[0].Tasks {
		if src := tk.Source; src == nil || src.Import == nil || src.Repository != suite {
			t.Fatalf("task %s does not import %s: %+v", tk.Name, suite, src)
		}
	}
	return p
}

// checkTwinRefs checks the run's refs in the repository its import made
// and returns that repository: a best program for each task of want, and
// candidate commits whose every change from the seed is of an editable
// file, at least one of them a change.
func checkTwinRefs(t *testing.T, p *plan.Plan, res *runtime.Result, want []string) string {
	t.Helper()
	var repo string
	var best []string
	for _, b := range res.Best {
		if repo != "" && b.Repository != repo {
			t.Errorf("best programs in two repositories: %s and %s", repo, b.Repository)
		}
		repo = b.Repository
		best = append(best, b.Task)
		if b.Ref != "refs/assay/c/best/"+b.Task {
			t.Errorf("task %s: best program at %s", b.Task, b.Ref)
		}
	}
	slices.Sort(best)
	if !slices.Equal(best, want) {
		t.Fatalf("best programs of %v, want %v", best, want)
	}
	if filepath.Base(filepath.Dir(repo)) != runtime.ImportsDir {
		t.Fatalf("the best programs are in %s, not an import", repo)
	}
	editable := p.Variants[0].Envs[0].Tasks[0].Source.Editable
	refs := strings.Fields(git(t, repo, "for-each-ref", "--format=%(refname)", "refs/assay/c/"))
	changed := 0
	for _, ref := range refs {
		files := strings.Fields(git(t, repo, "diff", "--name-only", gitrepo.SeedRef, ref, "--"))
		for _, f := range files {
			if !gitrepo.Match(editable, f) {
				t.Errorf("%s changes %s, outside the editable %v", ref, f, editable)
			}
		}
		if len(files) > 0 {
			changed++
		}
	}
	if len(refs) == 0 || changed == 0 {
		t.Errorf("%d refs under refs/assay/c/, %d of them a change: want commits of code changes\n%s", len(refs), changed, strings.Join(refs, "\n"))
	}
	return repo
}

// twinRuns are the finished real runs of candidate commits that run "c"
// in dir journaled, in journal order.
func twinRuns(t *testing.T, dir string) []journal.Run {
	t.Helper()
	j, err := runtime.OpenRun(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var out []journal.Run
	for _, r := range j.Runs() {
		if r.Result != nil && r.Result.Status == plugins.StatusFinished && r.Reservation.Proposal != nil && r.Reservation.Proposal.Commit != "" {
			out = append(out, r)
		}
	}
	return out
}

// checkArmsMeasureTheirPatches: on each held-out task, two evaluation
// runs of different programs (trees) measure differently, and two of the
// same program measure the same; with an evaluation, some arms' runs of
// a task are of different programs (or every arm would run the seed).
func checkArmsMeasureTheirPatches(t *testing.T, repo string, runs []journal.Run, evaluates bool) {
	t.Helper()
	type measured struct {
		key, tree string
		metric    float64
	}
	byTask := map[string][]measured{}
	for _, r := range runs {
		if !strings.HasPrefix(r.Key, "eval/") {
			continue
		}
		tree := strings.TrimSpace(git(t, repo, "rev-parse", r.Reservation.Proposal.Commit+"^{tree}"))
		byTask[r.Reservation.Task] = append(byTask[r.Reservation.Task], measured{r.Key, tree, r.Result.Metric})
	}
	differ := 0
	for task, ms := range byTask {
		for i, a := range ms {
			t.Logf("%s: %s measured %g", task, a.key, a.metric)
			for _, b := range ms[:i] {
				switch {
				case a.tree != b.tree && a.metric == b.metric:
					t.Errorf("%s: %s and %s are different programs, measured the same %g", task, a.key, b.key, a.metric)
				case a.tree == b.tree && a.metric != b.metric:
					t.Errorf("%s: %s and %s are the same program, measured %g and %g", task, a.key, b.key, a.metric, b.metric)
				case a.tree != b.tree:
					differ++
				}
			}
		}
	}
	if evaluates && differ == 0 {
		t.Errorf("no two evaluation runs of a task were of different programs: %v", byTask)
	}
}

// patchLine is a line a patch of the offline builder adds: a setting of
// the example suite set to a number.
var patchLine = regexp.MustCompile(`(?m)^\+\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([0-9.eE+-]+)\s*$`)

// checkPairsDescribeTheirPatches: each labelled pair of the run (assay
// export pairs) has an idea, a patch and, where a summarizer wrote one, a
// summary that all name the setting the patch changes and its new value.
func checkPairsDescribeTheirPatches(t *testing.T, dir string) {
	t.Helper()
	ps, _, err := pairs.Read(dir, []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		m := patchLine.FindStringSubmatch(p.Child.Patch)
		if m == nil {
			t.Errorf("pair %s: the patch sets no setting:\n%s", p.Candidate, p.Child.Patch)
			continue
		}
		if !strings.Contains(p.Idea, m[1]) || !strings.Contains(p.Idea, m[2]) {
			t.Errorf("pair %s: the idea %q, the patch sets %s = %s", p.Candidate, p.Idea, m[1], m[2])
		}
		if p.Child.Summary != "" && (!strings.Contains(p.Child.Summary, m[1]+" in ") || !strings.Contains(p.Child.Summary, " to "+m[2])) {
			t.Errorf("pair %s: the summary %q, the patch sets %s = %s", p.Candidate, p.Child.Summary, m[1], m[2])
		}
	}
}

// trainBest checks the best program of task out in repo and runs the
// task's evaluation command there, with the training seed its real run
// had: it trains to the metric the run recorded.
func trainBest(t *testing.T, p *plan.Plan, repo, task string, runs []journal.Run) {
	t.Helper()
	var argv []string
	for _, tk := range p.Variants[0].Envs[0].Tasks {
		if tk.Name == task {
			argv = tk.Command
		}
	}
	if len(argv) == 0 {
		t.Fatalf("no evaluation command for %s", task)
	}
	git(t, repo, "checkout", "-q", "refs/assay/c/best/"+task)
	if diff := git(t, repo, "diff", "--stat", gitrepo.SeedRef, "HEAD"); !strings.Contains(diff, ".go") {
		t.Errorf("the best program of %s is the seed program: %q", task, diff)
	}
	best := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	var rec *journal.Run
	for i, r := range runs {
		if r.Reservation.Proposal.Commit == best && r.Reservation.Task == task {
			rec = &runs[i]
		}
	}
	if rec == nil {
		t.Fatalf("no finished run of %s measured its best program %s", task, best)
	}
	var run struct {
		Seed int64 `json:"seed"`
	}
	b, err := os.ReadFile(filepath.Join(rec.Result.WorkDir, "run.json"))
	if err != nil || json.Unmarshal(b, &run) != nil {
		t.Fatalf("the run of the best program left no run.json: %v", err)
	}
	cmd := exec.CommandContext(context.Background(), argv[0], argv[1:]...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "ASSAY_SEED="+strconv.FormatInt(run.Seed, 10))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v in the best program of %s: %v\n%s", argv, task, err, out)
	}
	m := regexp.MustCompile(`(?m)^val_loss=([0-9.eE+-]+)$`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("%v printed no metric:\n%s", argv, out)
	}
	if got, _ := strconv.ParseFloat(m[1], 64); got != rec.Result.Metric {
		t.Errorf("the best program of %s gives %g by hand, and its run recorded %g", task, got, rec.Result.Metric)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
