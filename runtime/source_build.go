package runtime

import (
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
	"github.com/assay-lang/assay/runtime/journal"
)

// buildPrefix keys the journaled outcome of one build attempt (its
// builder call's key, a repair's /repair/N included).
const buildPrefix = "build/"

// buildOutcome is what the journal keeps of a build attempt: what was
// built (the parent, digests of the patch and of the source's build
// command and editable paths) and what came of it, the commit made or
// the failure the builder was told. A resume, or a replay that takes real
// runs from the journal, gives the same attempt the same outcome without
// a worktree or a build: a build is deterministic in what the journal
// keys it by, or its commits would differ between runs anyway.
type buildOutcome struct {
	Parent string `json:"parent"`
	Patch  string `json:"patch"`
	Recipe string `json:"recipe"`
	Commit string `json:"commit,omitempty"`
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

// buildOnce is buildCandidate for the build attempt keyed attempt, unless
// this run's journal, or on a replay of real runs the replayed run's,
// records its outcome for the same parent, patch and recipe: then a
// failure is given back as recorded, and a commit still in the repository
// is taken (its ref pointed at it) without a worktree or a build. The
// outcome is journaled either way.
func (m sourceMode) buildOnce(sp *seedProgram, attempt, key, parent, patch string, idea plugins.Proposal) (string, error) {
	jkey := buildPrefix + attempt
	want := buildOutcome{Parent: parent, Patch: digest(patch),
		Recipe: digest(append(append([]string{fmt.Sprint(len(sp.src.Build))}, sp.src.Build...), sp.src.Editable...)...)}
	rec, own, found := m.recordedBuild(jkey, want)
	if found && !sp.src.KeepWorktrees { // kept worktrees are asked for: build them
		if rec.Commit == "" {
			return "", m.noteBuild(jkey, rec, own, rec.err())
		}
		ok, err := m.reuseCommit(sp, key, rec.Commit)
		if err != nil {
			return "", err
		}
		if ok {
			return rec.Commit, m.noteBuild(jkey, rec, own, nil)
		}
	}
	commit, err := m.buildCandidate(sp, key, parent, patch, idea)
	var pe *gitrepo.PatchError
	var be *gitrepo.BuildError
	switch {
	case err == nil:
		want.Commit = commit
	case errors.As(err, &pe):
		want.Failure, want.Refused = err.Error(), true
	case errors.As(err, &be):
		want.Failure = err.Error()
	default:
		return "", err // the machine's: nothing to record
	}
	return commit, m.noteBuild(jkey, want, false, err)
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

// buildCandidate applies patch to parent in a fresh worktree, runs the
// source's build there, commits the result and points the candidate's ref
// at it. A refused patch is a *gitrepo.PatchError, a failed build a
// *gitrepo.BuildError; any other error is the machine's.
func (m sourceMode) buildCandidate(sp *seedProgram, key, parent, patch string, idea plugins.Proposal) (string, error) {
	r := m.s
	if strings.TrimSpace(patch) == "" {
		return "", &gitrepo.PatchError{Msg: "the answer holds no patch: answer with a unified diff of the editable files"}
	}
	wt, remove, err := m.worktree(sp, key, parent)
	if err != nil {
		return "", err
	}
	if !sp.src.KeepWorktrees {
		defer remove()
	}
	if _, err := gitrepo.Apply(r.ctx, wt, patch, sp.src.Editable); err != nil {
		return "", err
	}
	if len(sp.src.Build) > 0 {
		if _, err := gitrepo.Build(r.ctx, wt, sp.src.Build, buildEnviron(sp.src, os.Environ()), buildTimeLimit); err != nil {
			return "", err
		}
	}
	text := idea.Text
	if len(text) > ideaBytes {
		text = text[:ideaBytes]
	}
	msg := fmt.Sprintf("assay: %s\n\n%s\n", key, strings.TrimSpace(text))
	commit, err := gitrepo.Commit(r.ctx, wt, msg, sp.when)
	if err != nil {
		return "", err
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if err := sp.repo.UpdateRef(r.ctx, m.candidateRef(key), commit); err != nil {
		return "", err
	}
	return commit, nil
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
