package contract

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/runtime"
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
			res, _ := checkRun(t, p, 0)
			if tt := res.Totals; tt.RealRuns == 0 || tt.Finished+tt.Infeasible != tt.RealRuns {
				t.Errorf("real runs %d, finished %d, infeasible %d: want real runs, each ending with a result", tt.RealRuns, tt.Finished, tt.Infeasible)
			}
			repo := checkTwinRefs(t, p, res, codeTwins[name])
			if name == trainsBest {
				trainBest(t, p, repo, "spirals")
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

// trainBest checks the best program of task out in repo and runs the
// task's evaluation command there: it trains to a metric.
func trainBest(t *testing.T, p *plan.Plan, repo, task string) {
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
	cmd := exec.CommandContext(context.Background(), argv[0], argv[1:]...)
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v in the best program of %s: %v\n%s", argv, task, err, out)
	}
	if !strings.Contains(string(out), "\nval_loss=") {
		t.Errorf("%v printed no metric:\n%s", argv, out)
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
