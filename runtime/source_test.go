package runtime

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/base/textdiff"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

const seedParams = "rate = 0.5\nwidth = 8\n"

// scriptedBuilder answers builder calls with patches in order, and keeps
// the requests it was sent.
type scriptedBuilder struct {
	mu      sync.Mutex
	patches []string
	reqs    []payload.ImplementRequest
}

func (s *scriptedBuilder) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	var in payload.ImplementRequest
	if err := payload.Decode(req.Payload, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, in)
	patch := s.patches[min(len(s.reqs), len(s.patches))-1]
	b, _ := payload.Encode(payload.ImplementResponse{Proposal: in.Proposal, Patch: patch})
	return &plugins.CompleteResponse{Text: patch, Payload: b, Usage: plugins.Usage{In: 100, Out: 10}}, nil
}

func (s *scriptedBuilder) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, plugins.ErrUnsupported
}

// sourceService is a service over baseVariant whose task t0 has a seed
// program: a real git repository with params.txt (editable) and README.
func sourceService(t *testing.T, llm plugins.LLM, repairs int) (*service, string) {
	t.Helper()
	repo := seedRepo(t)
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return sourceServiceOn(t, llm, repo, j, repairs, nil, Options{ID: "run-1"}), repo
}

// seedRepo is a git repository with params.txt and README, committed.
func seedRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	for name, body := range map[string]string{"params.txt": seedParams, "README": "seed\n"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "seed"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}

// sourceServiceOn is sourceService over repo and the journal j (in its
// run directory), with the source's build command and opts (whose
// Plugins, when set, serve the trainer and llm in place of a fake
// trainer and llm).
func sourceServiceOn(t *testing.T, llm plugins.LLM, repo string, j *journal.Journal, repairs int, build []string, opts Options) *service {
	t.Helper()
	v := baseVariant()
	v.Envs[0].Tasks[0].Source = &plan.Source{Repository: repo, Revision: "HEAD", Editable: []string{"params.txt"}, Repairs: repairs, Build: build}
	if opts.Plugins == nil {
		opts.Plugins = LoaderFunc(func(ctx context.Context, p *plan.Plugin) (Instance, error) {
			if p.Kind == plugins.KindTrainer {
				return &inst{t: newFakeTrainer()}, nil
			}
			return &inst{l: llm}, nil
		})
	}
	opts.Retries = 2
	r := newService(context.Background(), v, j, filepath.Dir(j.Path()), opts)
	if err := r.resolveTasks(); err != nil {
		t.Fatal(err)
	}
	return r
}

func gitOut(t *testing.T, repo string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A patch outside the editable paths is refused and one that does not
// apply fails; each goes back to the builder with the error, and the third
// answer, a good patch, is built and committed under the run's refs.
func TestSourceRepairsRefusedPatches(t *testing.T) {
	good := textdiff.Unified("a/params.txt", "b/params.txt", seedParams, strings.Replace(seedParams, "0.5", "0.25", 1))
	outside := textdiff.Unified("a/README", "b/README", "seed\n", "changed\n")
	stale := strings.Replace(good, "-rate = 0.5", "-rate = 0.7", 1)
	b := &scriptedBuilder{patches: []string{outside, stale, good}}
	r, repo := sourceService(t, b, 2)
	task := r.tasks.find("tiny", "t0")
	p, ok, err := r.implement("builder", "", "loop/tiny/t0/3/implement", task, plugins.Proposal{ID: "p", Text: "halve the rate"})
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	if len(b.reqs) != 3 {
		t.Fatalf("%d builder calls, want 3 (one and two repairs)", len(b.reqs))
	}
	if first := b.reqs[0]; first.Source == nil || first.Source.Commit != task.src.base || len(first.Source.Files) != 1 || first.Source.Files[0].Content != seedParams {
		t.Fatalf("the builder was not shown the parent and its editable file: %+v", first.Source)
	}
	if f := b.reqs[1].Failure; b.reqs[1].Repair != 1 || !strings.Contains(f, `"README" is not editable`) {
		t.Fatalf("first repair told %q", f)
	}
	if f := b.reqs[2].Failure; b.reqs[2].Repair != 2 || !strings.Contains(f, "does not apply") {
		t.Fatalf("second repair told %q", f)
	}
	ref := "refs/assay/run-1/loop/tiny/t0/3"
	if got := gitOut(t, repo, "rev-parse", ref); got != p.Commit {
		t.Fatalf("ref %s = %s, proposal commit %s", ref, got, p.Commit)
	}
	// The candidate's patch is the commit's diff, as git writes it.
	if got := gitOut(t, repo, "diff", task.src.base, p.Commit); strings.TrimSpace(p.Patch) != got || !strings.Contains(got, "+rate = 0.25") {
		t.Fatalf("the candidate's patch is\n%s\nthe commit's diff\n%s", p.Patch, got)
	}
	if got := gitOut(t, repo, "show", p.Commit+":params.txt"); !strings.Contains(got, "rate = 0.25") {
		t.Fatalf("the commit holds %q", got)
	}
	if got := gitOut(t, repo, "diff", "--name-only", task.src.base, p.Commit); got != "params.txt" {
		t.Fatalf("the commit changes %q", got)
	}
	if got := gitOut(t, repo, "worktree", "list"); strings.Count(got, "\n") != 0 {
		t.Fatalf("worktrees left:\n%s", got)
	}
	checkCandidateShown(t, r, task, p, ref)
	checkCheckoutAndBest(t, r, repo, task, p)
}

// checkCandidateShown checks that status shows the candidate's idea,
// commit, ref and diffstat.
func checkCandidateShown(t *testing.T, r *service, task *taskInfo, p plugins.Proposal, ref string) {
	t.Helper()
	cands, _ := candidatesOf(r.j)
	if len(cands) != 1 {
		t.Fatalf("status candidates %+v", cands)
	}
	if c := cands[0]; c.Idea != "halve the rate" || c.Commit != p.Commit || c.Ref != ref || c.Files != 1 || c.Additions != 1 || c.Deletions != 1 || c.Parent != task.src.base {
		t.Fatalf("candidate %+v", c)
	}
}

// checkCheckoutAndBest checks that the real run of the candidate runs its
// commit and a baseline the seed, and that the best verified candidate
// becomes the task's best ref.
func checkCheckoutAndBest(t *testing.T, r *service, repo string, task *taskInfo, p plugins.Proposal) {
	t.Helper()
	if c := (sourceMode{r}).checkout(task, p); c == nil || c.Commit != p.Commit || c.Repository != repo {
		t.Fatalf("checkout %+v", c)
	}
	if c := (sourceMode{r}).checkout(task, plugins.Proposal{}); c == nil || c.Commit != task.src.base {
		t.Fatalf("baseline checkout %+v", c)
	}
	// The best verified candidate becomes the task's best ref.
	task.src.noteVerified(p.Commit, 0.1)
	if err := (sourceMode{r}).markBest(); err != nil {
		t.Fatal(err)
	}
	if got := gitOut(t, repo, "rev-parse", "refs/assay/run-1/best/t0"); got != p.Commit {
		t.Fatalf("best ref %s, want %s", got, p.Commit)
	}
}

// A candidate whose every attempt fails is a failed build: no commit, and
// the builder was called 1 + repairs times.
func TestSourceFailedBuild(t *testing.T) {
	outside := textdiff.Unified("a/README", "b/README", "seed\n", "changed\n")
	b := &scriptedBuilder{patches: []string{outside}}
	r, repo := sourceService(t, b, 1)
	task := r.tasks.find("tiny", "t0")
	p, ok, err := r.implement("builder", "", "k/implement", task, plugins.Proposal{ID: "p"})
	if err != nil || ok || p.Commit != "" {
		t.Fatalf("ok %v, commit %q, err %v: want a failed build", ok, p.Commit, err)
	}
	if len(b.reqs) != 2 {
		t.Fatalf("%d builder calls, want 2", len(b.reqs))
	}
	if got := gitOut(t, repo, "for-each-ref", "refs/assay/"); got != "" {
		t.Fatalf("a failed build left refs: %s", got)
	}
	if got := gitOut(t, repo, "show", "HEAD:README"); got != "seed" {
		t.Fatalf("README changed: %q", got)
	}
}

// keep_worktrees keeps a built candidate's worktree, at its commit.
func TestSourceKeepWorktrees(t *testing.T) {
	good := textdiff.Unified("a/params.txt", "b/params.txt", seedParams, strings.Replace(seedParams, "width = 8", "width = 16", 1))
	r, repo := sourceService(t, &scriptedBuilder{patches: []string{good}}, 0)
	task := r.tasks.find("tiny", "t0")
	task.src.src.KeepWorktrees = true
	p, ok, err := r.implement("builder", "", "k/implement", task, plugins.Proposal{ID: "p"})
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	wt := filepath.Join(r.dir, "worktrees", "k_implement")
	if got := gitOut(t, wt, "rev-parse", "HEAD"); got != p.Commit {
		t.Fatalf("kept worktree at %s, want %s", got, p.Commit)
	}
	if got := gitOut(t, repo, "worktree", "list"); !strings.Contains(got, wt) {
		t.Fatalf("worktree not kept:\n%s", got)
	}
}
