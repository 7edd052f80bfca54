package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// buildPrefix keys the journaled outcome of one build attempt (its
// builder call's key, a repair's /repair/N included).
const buildPrefix = "build/"

// buildOutcome is what the journal keeps of a build attempt: what was
// built (the parent, digests of the change and of the source's build
// command and editable paths) and what came of it, the commit made (and
// its patch, where that is not the answer's) or the failure the builder
// was told. A resume, or a replay that takes real
// runs from the journal, gives the same attempt the same outcome without
// a worktree or a build: a build is deterministic in what the journal
// keys it by, or its commits would differ between runs anyway.
type buildOutcome struct {
	Parent string `json:"parent"`
	Patch  string `json:"patch"`
	Recipe string `json:"recipe"`
	Commit string `json:"commit,omitempty"`
	// Diff is the commit's diff against its parent, the candidate's
	// patch, when it is not the answer's patch as written (a change of
	// edits or files, a patch git read leniently); empty, it is.
	Diff string `json:"diff,omitempty"`
	// Failure is the message the builder was given; Refused marks a patch
	// refused or not applied (a *gitrepo.PatchError) rather than a build
	// that failed.
	Failure string `json:"failure,omitempty"`
	Refused bool   `json:"refused,omitempty"`
}

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\x00", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameInput reports whether o was built from what want is.
func (o buildOutcome) sameInput(want buildOutcome) bool {
	return o.Parent == want.Parent && o.Patch == want.Patch && o.Recipe == want.Recipe
}

// err is a recorded failure as the error the build gave.
func (o buildOutcome) err() error {
	if o.Refused {
		return &gitrepo.PatchError{Msg: o.Failure}
	}
	return &gitrepo.BuildError{Msg: o.Failure}
}

// sourceChange is a builder's change of the parent program: a unified
// diff, whole files, SEARCH/REPLACE edits, made in that order.
type sourceChange struct {
	Patch string               `json:"patch,omitempty"`
	Files []payload.WholeFile  `json:"files,omitempty"`
	Edits []payload.SourceEdit `json:"edits,omitempty"`
}

// changeOf is the change a builder's answer holds (a patch in its
// proposal counts where the answer has none of its own).
func changeOf(resp payload.ImplementResponse) sourceChange {
	ch := sourceChange{Patch: resp.Patch, Files: resp.Files, Edits: resp.Edits}
	if ch.Patch == "" {
		ch.Patch = resp.Proposal.Patch
	}
	return ch
}

// digest keys the change in the build journal: a patch alone by its
// text's digest, as the journal always has, so a journal written before
// edits and files were read still gives its builds back.
func (ch sourceChange) digest() string {
	if len(ch.Files) == 0 && len(ch.Edits) == 0 {
		return digest(ch.Patch)
	}
	b, _ := json.Marshal(ch)
	return digest("change", string(b))
}

func (ch sourceChange) empty() bool {
	return strings.TrimSpace(ch.Patch) == "" && len(ch.Files) == 0 && len(ch.Edits) == 0
}

// buildOnce is buildCandidate for the build attempt keyed attempt, unless
// this run's journal, or on a replay of real runs the replayed run's,
// records its outcome for the same parent, change and recipe: then a
// failure is given back as recorded, and a commit still in the repository
// is taken (its ref pointed at it) without a worktree or a build. The
// outcome is journaled either way. It returns the commit and its patch,
// the commit's diff against parent.
func (m sourceMode) buildOnce(sp *seedProgram, attempt, key, parent string, ch sourceChange, idea plugins.Proposal, sc *payload.SourceContext) (string, string, error) {
	jkey := buildPrefix + attempt
	want := buildOutcome{Parent: parent, Patch: ch.digest(),
		Recipe: digest(append(append([]string{fmt.Sprint(len(sp.src.Build))}, sp.src.Build...), sp.src.Editable...)...)}
	rec, own, found := m.recordedBuild(jkey, want)
	if found && !sp.src.KeepWorktrees { // kept worktrees are asked for: build them
		if rec.Commit == "" {
			return "", "", m.noteBuild(jkey, rec, own, rec.err())
		}
		ok, err := m.reuseCommit(sp, key, rec.Commit)
		if err != nil {
			return "", "", err
		}
		if ok {
			return rec.Commit, rec.patch(ch), m.noteBuild(jkey, rec, own, nil)
		}
	}
	commit, diff, err := m.buildCandidate(sp, key, parent, ch, idea, sc)
	var pe *gitrepo.PatchError
	var be *gitrepo.BuildError
	switch {
	case err == nil:
		want.Commit = commit
		if diff != ch.Patch {
			want.Diff = diff
		}
	case errors.As(err, &pe):
		want.Failure, want.Refused = err.Error(), true
	case errors.As(err, &be):
		want.Failure = err.Error()
	default:
		return "", "", err // the machine's: nothing to record
	}
	return commit, diff, m.noteBuild(jkey, want, false, err)
}

// patch is the recorded commit's patch: its diff, or the change's patch
// as written where that is the diff.
func (o buildOutcome) patch(ch sourceChange) string {
	if o.Diff != "" {
		return o.Diff
	}
	return ch.Patch
}

// noteBuild journals an attempt's outcome unless it came from this run's
// journal, and returns the attempt's error.
func (m sourceMode) noteBuild(jkey string, o buildOutcome, own bool, err error) error {
	if !own {
		if jerr := m.s.j.Append(journal.KindCall, jkey, o); jerr != nil {
			return jerr
		}
	}
	return err
}

// recordedBuild is the outcome journaled for jkey with want's input: this
// run's (own), or on a replay of real runs the replayed run's.
func (m sourceMode) recordedBuild(jkey string, want buildOutcome) (rec buildOutcome, own, found bool) {
	r := m.s
	if d, ok := r.j.Call(journal.KindCall, jkey); ok && json.Unmarshal(d, &rec) == nil && rec.sameInput(want) {
		return rec, true, true
	}
	if r.replay != nil && r.replay.runs {
		rec = buildOutcome{}
		if d, ok := r.replay.j.Call(journal.KindCall, jkey); ok && json.Unmarshal(d, &rec) == nil && rec.sameInput(want) {
			return rec, false, true
		}
	}
	return buildOutcome{}, false, false
}

// candidateRef is the ref of the candidate whose builder call is key.
func (m sourceMode) candidateRef(key string) string {
	return gitrepo.RefName(m.runID(), strings.TrimSuffix(key, "/implement"))
}

// reuseCommit points the candidate's ref at commit when the repository
// holds it (and the ref does not already point there); false when it does
// not hold it, and the candidate is built again.
func (m sourceMode) reuseCommit(sp *seedProgram, key, commit string) (bool, error) {
	r := m.s
	ref := m.candidateRef(key)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	has, at, err := sp.repo.Lookup(r.ctx, commit, ref)
	if err != nil || !has {
		return false, err
	}
	if at == commit {
		return true, nil
	}
	return true, sp.repo.UpdateRef(r.ctx, ref, commit)
}

// worktree adds a fresh worktree of commit for key under the run's
// directory, and returns it with the function that removes it.
func (m sourceMode) worktree(sp *seedProgram, key, commit string) (string, func(), error) {
	r := m.s
	wt, err := filepath.Abs(filepath.Join(r.dir, "worktrees", strings.NewReplacer("/", "_", "~", "-").Replace(key)))
	if err != nil {
		return "", nil, err
	}
	sp.mu.Lock()
	// A crashed attempt's worktree, if any, is removed first; git is asked
	// only then (a worktree whose directory is gone, add --force takes
	// over).
	if _, serr := os.Lstat(wt); serr == nil {
		_ = sp.repo.RemoveWorktree(r.ctx, wt)
		_ = os.RemoveAll(wt)
	}
	err = sp.repo.AddWorktree(r.ctx, wt, commit)
	sp.mu.Unlock()
	if err != nil {
		return "", nil, err
	}
	return wt, func() {
		sp.mu.Lock()
		defer sp.mu.Unlock()
		_ = sp.repo.RemoveWorktree(r.ctx, wt)
	}, nil
}

// buildCandidate makes the change to parent in a fresh worktree (the
// patch applied, then whole files written and SEARCH/REPLACE edits made
// in the real files, not the copies the builder was shown), runs the
// source's build there, commits the result and points the candidate's
// ref at it. It returns the commit and its diff against parent, the
// candidate's patch. A refused change is a *gitrepo.PatchError, a failed
// build a *gitrepo.BuildError; any other error is the machine's.
func (m sourceMode) buildCandidate(sp *seedProgram, key, parent string, ch sourceChange, idea plugins.Proposal, sc *payload.SourceContext) (string, string, error) {
	r := m.s
	if ch.empty() {
		return "", "", &gitrepo.PatchError{Msg: "the answer holds no change: answer with SEARCH/REPLACE blocks or a unified diff of the editable files"}
	}
	if err := wholeFilesShown(ch, sc); err != nil {
		return "", "", err
	}
	wt, remove, err := m.worktree(sp, key, parent)
	if err != nil {
		return "", "", err
	}
	if !sp.src.KeepWorktrees {
		defer remove()
	}
	if err := makeChange(r.ctx, wt, ch, sp.src.Editable, sc); err != nil {
		return "", "", err
	}
	if len(sp.src.Build) > 0 {
		if _, err := gitrepo.Build(r.ctx, wt, sp.src.Build, buildEnviron(sp.src, os.Environ()), buildTimeLimit); err != nil {
			return "", "", err
		}
	}
	text := idea.Text
	if len(text) > ideaBytes {
		text = text[:ideaBytes]
	}
	msg := fmt.Sprintf("assay: %s\n\n%s\n", key, strings.TrimSpace(text))
	commit, err := gitrepo.Commit(r.ctx, wt, msg, sp.when)
	if err != nil {
		return "", "", err
	}
	// The candidate's patch is what was committed, whatever the answer's
	// shape: git's diff of the commit against its parent.
	diff, err := sp.repo.Diff(r.ctx, parent, commit)
	switch {
	case err != nil:
		return "", "", &gitrepo.PatchError{Msg: fmt.Sprintf("the committed change cannot be read back as a patch (%v): make a smaller change", err)}
	case diff == "":
		return "", "", &gitrepo.PatchError{Msg: "the change leaves the program as it was: change the code the idea names"}
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if err := sp.repo.UpdateRef(r.ctx, m.candidateRef(key), commit); err != nil {
		return "", "", err
	}
	return commit, diff, nil
}

// makeChange makes ch in the worktree wt: its patch applied, then its
// whole files written and its edits made, each path checked against
// editable; an edit without a path edits the one file shown that holds
// its SEARCH text. Whatever the answer's shape, what it staged is checked
// last as the commit will hold it (gitrepo.CheckChange: names, modes),
// so no shape passes a refused name or mode to a build or a commit.
func makeChange(ctx context.Context, wt string, ch sourceChange, editable []string, sc *payload.SourceContext) error {
	if strings.TrimSpace(ch.Patch) != "" {
		if _, err := gitrepo.Apply(ctx, wt, ch.Patch, editable); err != nil {
			return err
		}
	}
	if len(ch.Files) > 0 || len(ch.Edits) > 0 {
		if err := editChange(ctx, wt, ch, editable, sc); err != nil {
			return err
		}
	}
	return gitrepo.CheckChange(ctx, wt, editable)
}

// editChange writes ch's whole files and makes its edits in wt.
func editChange(ctx context.Context, wt string, ch sourceChange, editable []string, sc *payload.SourceContext) error {
	writes := make([]gitrepo.Write, len(ch.Files))
	for i, f := range ch.Files {
		writes[i] = gitrepo.Write{Path: f.Path, Content: f.Content}
	}
	replaces := make([]gitrepo.Replace, len(ch.Edits))
	for i, e := range ch.Edits {
		replaces[i] = gitrepo.Replace{Path: e.Path, Search: e.Search, Replace: e.Replace}
	}
	var shown []string
	if sc != nil {
		for _, f := range sc.Files {
			shown = append(shown, f.Path)
		}
	}
	_, err := gitrepo.Edit(ctx, wt, writes, replaces, editable, shown)
	return err
}

// wholeFilesShown refuses a whole file written anew that the builder was
// shown cut short: the rest of it would be lost.
func wholeFilesShown(ch sourceChange, sc *payload.SourceContext) error {
	if sc == nil {
		return nil
	}
	for _, w := range ch.Files {
		for _, f := range sc.Files {
			if f.Path == w.Path && f.Truncated {
				return &gitrepo.PatchError{Msg: fmt.Sprintf("%s was shown cut short, so a whole new %s would lose the rest of it: change it with SEARCH/REPLACE blocks or a diff", w.Path, w.Path)}
			}
		}
	}
	return nil
}

// buildEnviron is a build's whole environment: the entries of environ
// (assay's own) that the plan says it inherits, then the ones the plan
// sets for it. Nothing else of assay's reaches it (an LLM plugin's key).
func buildEnviron(src *plan.Source, environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(src.BuildInherits, k) {
			out = append(out, kv)
		}
	}
	return append(out, src.BuildEnv...)
}
