package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// shapeBuilder answers builder calls with the given answers in order
// (the last repeated); a nil answer is one that cannot be read.
type shapeBuilder struct {
	mu      sync.Mutex
	answers []*payload.ImplementResponse
	reqs    []payload.ImplementRequest
}

func (s *shapeBuilder) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	var in payload.ImplementRequest
	if err := payload.Decode(req.Payload, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, in)
	a := s.answers[min(len(s.reqs), len(s.answers))-1]
	if a == nil {
		return nil, plugins.WithUsage(plugins.WithKind(plugins.ErrUnparsed, errors.New("the answer holds no change")), plugins.Usage{In: 100, Out: 10})
	}
	b, _ := payload.Encode(a)
	return &plugins.CompleteResponse{Payload: b, Usage: plugins.Usage{In: 100, Out: 10}}, nil
}

func (s *shapeBuilder) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, plugins.ErrUnsupported
}

// A builder's SEARCH/REPLACE edits and whole files are made in the real
// files of the candidate's worktree and committed; an answer that cannot
// be read and an ambiguous edit each go back to the builder saying why;
// the candidate's patch is the commit's diff. A resume takes the build
// from the journal, patch and all, with no build.
func TestSourceBuildsEditsAndFiles(t *testing.T) {
	repo := seedRepo(t)
	build, builds := countingBuild(t)
	dir := t.TempDir()
	j1 := openJournal(t, dir)
	answers := []*payload.ImplementResponse{
		nil,
		{Files: []payload.WholeFile{{Path: "params.txt", Content: "rate = 0.5\nwidth = 8\nrate = 0.5\n"}}, Edits: []payload.SourceEdit{{Path: "params.txt", Search: "rate = 0.5\n", Replace: "rate = 0.25\n"}}},
		{Edits: []payload.SourceEdit{{Search: "rate = 0.5", Replace: "rate = 0.25"}, {Path: "params.txt", Search: "width = 8", Replace: "width = 16"}}},
	}
	b := &shapeBuilder{answers: answers}
	r1 := sourceServiceOn(t, b, repo, j1, 2, build, Options{ID: "run-1"})
	task := r1.tasks.find("tiny", "t0")
	p, ok, err := r1.implement("builder", "L", buildKey, task, plugins.Proposal{ID: "p", Text: "quarter the rate"})
	if err != nil || !ok || len(b.reqs) != 3 {
		t.Fatalf("ok %v, err %v, %d builder calls (want 3: one and two repairs)", ok, err, len(b.reqs))
	}
	if f := b.reqs[1].Failure; !strings.Contains(f, "could not be read") || !strings.Contains(f, "the answer holds no change") {
		t.Errorf("the first repair was told %q", f)
	}
	if f := b.reqs[2].Failure; !strings.Contains(f, "ambiguous") || !strings.Contains(f, "lines 1, 3") {
		t.Errorf("the second repair was told %q", f)
	}
	if got := gitOut(t, repo, "show", p.Commit+":params.txt"); got != "rate = 0.25\nwidth = 16" {
		t.Fatalf("the commit holds %q", got)
	}
	diff := gitOut(t, repo, "diff", task.src.base, p.Commit)
	if strings.TrimSpace(p.Patch) != diff || !strings.Contains(diff, "+width = 16") {
		t.Fatalf("the candidate's patch is\n%s\nthe commit's diff\n%s", p.Patch, diff)
	}
	if n := builds(); n != 1 {
		t.Fatalf("%d builds, want 1 (refused changes build nothing)", n)
	}
	j1.Close()

	j2 := openJournal(t, dir)
	var rec buildOutcome
	d, _ := j2.Call(journal.KindCall, buildPrefix+buildKey+"/repair/2")
	if err := json.Unmarshal(d, &rec); err != nil || rec.Commit != p.Commit || rec.Diff != p.Patch {
		t.Fatalf("the build is journaled as %+v (%v)", rec, err)
	}
	r2 := sourceServiceOn(t, &shapeBuilder{answers: answers[:1]}, repo, j2, 2, build, Options{ID: "run-1", Resume: true})
	p2, ok, err := r2.implement("builder", "L", buildKey, r2.tasks.find("tiny", "t0"), plugins.Proposal{ID: "p", Text: "quarter the rate"})
	if err != nil || !ok || p2.Commit != p.Commit || p2.Patch != p.Patch || builds() != 1 {
		t.Fatalf("resume: ok %v, err %v, commit %s, %d builds; want %s, its patch, no build", ok, err, p2.Commit, builds(), p.Commit)
	}
	j2.Close()
}

// A change whose whole file the builder was shown cut short is refused:
// the rest of the file would be lost.
func TestWholeFileShownCutShortRefused(t *testing.T) {
	sc := &payload.SourceContext{Files: []payload.SourceFile{{Path: "big.py", Truncated: true}, {Path: "small.py"}}}
	err := wholeFilesShown(sourceChange{Files: []payload.WholeFile{{Path: "big.py", Content: "x"}}}, sc)
	var pe *gitrepo.PatchError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "shown cut short") {
		t.Fatalf("got %v", err)
	}
	if err := wholeFilesShown(sourceChange{Files: []payload.WholeFile{{Path: "small.py"}}, Edits: []payload.SourceEdit{{Path: "big.py"}}}, sc); err != nil {
		t.Fatalf("a whole small file and an edit of the big one: %v", err)
	}
}

// A change keyed as a patch alone digests as the journal always has, so
// an older journal's builds are found; edits and files digest apart.
func TestSourceChangeDigest(t *testing.T) {
	if got := (sourceChange{Patch: "p"}).digest(); got != digest("p") {
		t.Errorf("a patch alone digests as %s, want %s", got, digest("p"))
	}
	a := sourceChange{Edits: []payload.SourceEdit{{Path: "a", Search: "x", Replace: "y"}}}
	b := sourceChange{Files: []payload.WholeFile{{Path: "a", Content: "y"}}}
	if a.digest() == b.digest() || a.digest() == (sourceChange{}).digest() {
		t.Error("different changes digest alike")
	}
}
