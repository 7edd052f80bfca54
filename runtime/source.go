package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// Bounds of what a builder is shown of the parent program, and of a build.
const (
	sourceFileBytes  = 16 << 10
	sourceTotalBytes = 96 << 10
	sourceMaxFiles   = 64
	// buildTimeLimit bounds one build command in a candidate's worktree.
	buildTimeLimit = 10 * time.Minute
	// ideaBytes bounds the idea text written into a commit message.
	ideaBytes = 4 << 10
)

// sourceMode builds candidates of seed programs for the service: its
// methods are the service's in source mode, kept off the service itself.
type sourceMode struct{ s *service }

// seedProgram is a task's seed program, resolved when the run started.
type seedProgram struct {
	src  *plan.Source
	repo *gitrepo.Repo
	// base is the commit the plan's revision named when the run started
	// (journaled: a resume keeps it), when the date every candidate commit
	// of the task carries (the base's commit date), so the same patch on
	// the same parent is the same commit in any run.
	base string
	when time.Time
	// mu serializes the worktree and ref changes of one repository.
	mu *sync.Mutex

	// best is the task's best verified candidate so far: its commit and
	// real gain (ties go to the smaller commit id, so any order of runs
	// marks the same one).
	bestMu   sync.Mutex
	best     string
	bestGain float64

	// shown keeps the contexts of the last commits read (at most
	// shownCommits): a commit's files never change, and the proposer and
	// the builder of each candidate are shown its parent's, most often
	// the seed's.
	shownMu sync.Mutex
	shown   map[string]*payload.SourceContext

	// built keeps, by builder call key, each candidate this process built
	// (the journal keeps only what was on disk when it opened): what a
	// repair of its run starts from.
	builtMu sync.Mutex
	built   map[string]builtAt
}

// builtAt is a built candidate's parent and the builder attempt that
// built it (its repairs so far).
type builtAt struct {
	parent  string
	attempt int
}

// shownCommits bounds the contexts a seed program keeps (each at most
// sourceTotalBytes of files).
const shownCommits = 16

// noteVerified records a finished real run of commit with its gain; a
// no-op in knob mode (s nil) or for a run of no candidate commit.
func (s *seedProgram) noteVerified(commit string, gain float64) {
	if s == nil || commit == "" || commit == s.base {
		return
	}
	s.bestMu.Lock()
	defer s.bestMu.Unlock()
	if s.best == "" || gain > s.bestGain || (gain == s.bestGain && commit < s.best) {
		s.best, s.bestGain = commit, gain
	}
}

// markBest points refs/assay/<run>/best/<task> at each task's best
// verified candidate (best/<env>/<task> where two environments share a
// task name), so the user can check the best program out.
func (m sourceMode) markBest() error {
	r := m.s
	names := map[string]int{}
	for _, t := range r.tasks {
		names[t.Name]++
	}
	var marked []BestProgram
	for _, t := range r.tasks {
		sp := t.src
		if sp == nil {
			continue
		}
		sp.bestMu.Lock()
		best := sp.best
		gain := sp.bestGain
		sp.bestMu.Unlock()
		if best == "" {
			continue
		}
		ref := gitrepo.RefName(m.runID(), "best", t.Name)
		if names[t.Name] > 1 {
			ref = gitrepo.RefName(m.runID(), "best", t.Env, t.Name)
		}
		sp.mu.Lock()
		err := sp.repo.UpdateRef(r.ctx, ref, best)
		sp.mu.Unlock()
		if err != nil {
			return err
		}
		marked = append(marked, BestProgram{Env: t.Env, Task: t.Name, Repository: sp.repo.Dir, Ref: ref, Commit: best, Gain: gain})
	}
	r.best = marked
	if len(marked) == 0 {
		return nil
	}
	return r.j.SetMeta(metaBest, marked) // status and the report name them
}

// BestProgram is a task's best program in source mode: the ref that names
// it, in the repository that holds it (an imported source's own).
type BestProgram struct {
	Env        string `json:"env"`
	Task       string `json:"task"`
	Repository string `json:"repository"`
	Ref        string `json:"ref"`
	// Commit is the program the ref names, Gain its real gain.
	Commit string  `json:"commit,omitempty"`
	Gain   float64 `json:"real_gain"`
}

// sourceRecord is what the journal keeps of a resolved seed program; an
// imported one's repository too, so a resume keeps the import it began
// with whatever the directory holds by then.
type sourceRecord struct {
	Commit     string `json:"commit"`
	Unix       int64  `json:"unix"`
	Repository string `json:"repository,omitempty"`
}

// ImportsDir is where, under the runs directory, imported seed programs
// are repositories, one per content hash: the dot keeps it from being
// read as a run.
const ImportsDir = ".imports"

// resolveSource resolves t's seed program, or returns the one the journal
// holds; locks holds one mutex per repository directory.
func (m sourceMode) resolveSource(env string, t *plan.Task, locks map[string]*sync.Mutex) (*seedProgram, error) {
	r := m.s
	src := t.Source
	key := seedKeyPrefix + env + "/" + t.Name
	var rec sourceRecord
	d, journaled := r.j.Call(journal.KindCall, key)
	journaled = journaled && json.Unmarshal(d, &rec) == nil
	repo, err := m.openSource(src, &rec, journaled)
	if err != nil {
		return nil, fmt.Errorf("%s: task %s: %w", src.At, t.Name, err)
	}
	if !journaled {
		if rec.Commit == "" {
			if rec.Commit, err = repo.Resolve(r.ctx, src.Revision); err != nil {
				return nil, fmt.Errorf("%s: task %s: %w", src.At, t.Name, err)
			}
		}
		when, err := repo.CommitTime(r.ctx, rec.Commit)
		if err != nil {
			return nil, err
		}
		rec.Unix = when.Unix()
		if err := r.j.Append(journal.KindCall, key, rec); err != nil {
			return nil, err
		}
	}
	if locks[repo.Dir] == nil {
		locks[repo.Dir] = &sync.Mutex{}
	}
	return &seedProgram{src: src, repo: repo, base: rec.Commit, when: time.Unix(rec.Unix, 0).UTC(), mu: locks[repo.Dir]}, nil
}

// openSource opens a source's repository: the plan's, or for an imported
// one the journaled import, or a fresh import of its directory (which sets
// rec's commit and repository).
func (m sourceMode) openSource(src *plan.Source, rec *sourceRecord, journaled bool) (*gitrepo.Repo, error) {
	r := m.s
	switch {
	case src.Import == nil:
		return gitrepo.Open(r.ctx, src.Repository)
	case journaled && rec.Repository != "":
		return gitrepo.Open(r.ctx, rec.Repository)
	}
	repo, commit, err := gitrepo.Import(r.ctx, importSource(src), filepath.Join(r.opts.Dir, ImportsDir))
	if err != nil {
		return nil, fmt.Errorf("import of %s: %w", src.Repository, err)
	}
	rec.Commit, rec.Repository = commit, repo.Dir
	return repo, nil
}

// importSource is what an imported source's import takes.
func importSource(src *plan.Source) gitrepo.ImportSource {
	return gitrepo.ImportSource{Dir: src.Repository, Exclude: src.Import.Exclude, Overlay: src.Import.Overlay}
}

// runID names the run in refs: its id, or its directory's name.
func (m sourceMode) runID() string {
	r := m.s
	if r.opts.ID != "" {
		return r.opts.ID
	}
	return filepath.Base(r.dir)
}

// checkout is the program a real run of p on t runs: p's commit, or the
// seed program's for a proposal that has none (a baseline); nil in knob
// mode.
func (sourceMode) checkout(t *taskInfo, p plugins.Proposal) *plugins.Checkout {
	if t == nil || t.src == nil {
		return nil
	}
	c := &plugins.Checkout{Repository: t.src.repo.Dir, Commit: t.src.base}
	if p.Commit != "" {
		c.Commit = p.Commit
	}
	return c
}

// context is the program at commit as a proposer or builder is shown it:
// its editable paths and files, each file and the whole bounded. It is
// shared: its reader must not change it.
func (sp *seedProgram) context(ctx context.Context, commit string) (*payload.SourceContext, error) {
	sp.shownMu.Lock()
	sc, ok := sp.shown[commit]
	sp.shownMu.Unlock()
	if ok {
		return sc, nil
	}
	sc, err := sp.readContext(ctx, commit)
	if err != nil {
		return nil, err
	}
	sp.shownMu.Lock()
	defer sp.shownMu.Unlock()
	if sp.shown == nil {
		sp.shown = map[string]*payload.SourceContext{}
	}
	for k := range sp.shown {
		if len(sp.shown) < shownCommits {
			break
		}
		delete(sp.shown, k)
	}
	sp.shown[commit] = sc
	return sc, nil
}

// readContext reads the program at commit as context shows it.
func (sp *seedProgram) readContext(ctx context.Context, commit string) (*payload.SourceContext, error) {
	files, err := sp.repo.Files(ctx, commit, sp.src.Editable, sourceFileBytes, sourceTotalBytes, sourceMaxFiles)
	if err != nil {
		return nil, err
	}
	sc := &payload.SourceContext{Commit: commit, Editable: sp.src.Editable}
	for _, f := range files {
		sc.Files = append(sc.Files, payload.SourceFile{Path: f.Path, Content: f.Content, Truncated: f.Truncated})
	}
	return sc, nil
}

// implementSource is implement in source mode: the builder is shown the
// idea, the parent's commit and its editable files, and answers with a
// change (a unified diff, SEARCH/REPLACE edits, whole files:
// payload.ParseImplement). The change is made in a worktree of the
// parent, built, and committed under refs/assay/<run>/<key>; a change
// that is refused (ambiguous, outside the editable paths), does not apply
// or does not build, or an answer that cannot be read, goes back to the
// builder with the error, up to the source's repairs. It returns the
// built proposal (its Commit set, and its Patch the diff of the commit
// against its parent, whatever shape the answer had), and whether it
// built.
func (m sourceMode) implementSource(builder, loop, key string, t *taskInfo, p plugins.Proposal) (plugins.Proposal, bool, error) {
	sp := t.src
	parent := sp.base
	if p.Commit != "" {
		parent = p.Commit
	}
	a, err := m.buildAttempts(builder, loop, key, t, p, attemptFrom{parent: parent})
	if err != nil {
		return p, false, err
	}
	m.s.measured.build(builder, !a.ok)
	m.s.watch.build(a.ok, a.failure)
	if loop != "" {
		m.s.measured.loop(loop, func(ml *MeasuredLoop) {
			ml.Built++
			if !a.ok {
				ml.BuildFailed++
			}
		})
	}
	if !a.ok {
		return p, false, nil // a build that failed is an infeasible candidate
	}
	if err := m.journalCandidate(sp, t, key, parent, a.p, a.n); err != nil {
		return p, false, err
	}
	sp.builtMu.Lock()
	if sp.built == nil {
		sp.built = map[string]builtAt{}
	}
	sp.built[key] = builtAt{parent: parent, attempt: a.n}
	sp.builtMu.Unlock()
	return a.p, true, nil
}

// attemptFrom is where a candidate's build attempts start: the program
// the builder changes (its parent's commit), the first attempt's number
// (0, or after a run that failed the repair after the last attempt), and
// what that attempt is told failed ("" for a first build).
type attemptFrom struct {
	parent  string
	n       int
	failure string
}

// attempted is how a candidate's build attempts ended: the built proposal
// (its Commit and Patch set) and the attempt that built it, when ok; else
// why the last attempt failed.
type attempted struct {
	p       plugins.Proposal
	n       int
	ok      bool
	failure string
}

// buildAttempts asks the builder for a patch of the program at from.parent
// and builds it, attempt after attempt up to the source's repairs: each
// that fails goes back to the builder with its error. Attempt n > 0 is
// repair n, keyed key/repair/n; every one counts against the same repairs,
// whether a build or a run failed before it.
func (m sourceMode) buildAttempts(builder, loop, key string, t *taskInfo, p plugins.Proposal, from attemptFrom) (attempted, error) {
	r := m.s
	sp := t.src
	sc, err := sp.context(r.ctx, from.parent)
	if err != nil {
		return attempted{}, err
	}
	failure := from.failure
	for n := from.n; n <= sp.src.Repairs; n++ {
		req := payload.ImplementRequest{Task: t.Name, Env: t.Env, Proposal: p, Knobs: r.knobs[t.Env], Source: sc}
		k := key
		if n > 0 {
			k = fmt.Sprintf("%s/repair/%d", key, n)
			req.Repair, req.Failure = n, failure
			if loop != "" {
				r.measured.loop(loop, func(m *MeasuredLoop) { m.Repairs++ })
			}
		}
		var resp payload.ImplementResponse
		err := r.complete(builder, k, req, &resp)
		switch {
		case errors.Is(err, errUnparsed):
			// What could not be read is said, so the repair can write it
			// in a shape that is read.
			failure = "the answer could not be read: " + err.Error()
			continue
		case errors.Is(err, errCallFailed):
			failure = "the build call failed"
			continue
		case err != nil:
			return attempted{}, err
		case resp.Infeasible:
			failure = resp.Reason
			continue
		}
		ch := changeOf(resp)
		commit, patch, berr := m.buildOnce(sp, k, key, from.parent, ch, p, sc)
		if berr != nil {
			var pe *gitrepo.PatchError
			var be *gitrepo.BuildError
			if !errors.As(berr, &pe) && !errors.As(berr, &be) {
				return attempted{}, berr
			}
			failure = berr.Error()
			continue
		}
		built := p
		built.Patch, built.Commit = patch, commit
		return attempted{p: built, n: n, ok: true}, nil
	}
	return attempted{failure: failure}, nil
}

// Candidate is a built candidate as status shows it: its idea, the
// commit it built on and the one it is, its ref, and its diffstat. Repo
// is the repository that holds the commits (empty in a journal of an
// Assay older than assay patch).
type Candidate struct {
	Key       string `json:"key"`
	Env       string `json:"env"`
	Task      string `json:"task"`
	Idea      string `json:"idea"`
	Mechanism string `json:"mechanism,omitempty"`
	Parent    string `json:"parent"`
	Commit    string `json:"commit"`
	Ref       string `json:"ref"`
	Repo      string `json:"repo,omitempty"`
	// Repairs counts the builder repairs the candidate took: its build's,
	// then its runs' (a run that failed in the candidate's code goes back
	// to the builder too, under the same repairs).
	Repairs int `json:"repairs,omitempty"`
	// Attempts, for a candidate whose real run failed in its code and was
	// repaired, are the programs it was, in order: the last one is the
	// candidate (Commit, and the diffstat from Parent to it).
	Attempts []Attempt `json:"attempts,omitempty"`
	gitrepo.DiffStat
	// Run is the real run that measured the candidate's program, with its
	// Status, Metric and Gain over the task's baseline (status fills them
	// from the journal's runs); empty when no real run measured it (a
	// critic judged it, or the budget left none).
	Run    string   `json:"run,omitempty"`
	Status string   `json:"status,omitempty"`
	Metric *float64 `json:"metric,omitempty"`
	Gain   *float64 `json:"real_gain,omitempty"`
}

// candidatePrefix keys a built candidate's journal record.
const candidatePrefix = "candidate/"

// seedKeyPrefix prefixes the journal keys of a task's seed program.
const seedKeyPrefix = "source/"

// journalCandidate records a built candidate once (a resume rebuilds the
// same commit and finds it recorded).
func (m sourceMode) journalCandidate(sp *seedProgram, t *taskInfo, key, parent string, p plugins.Proposal, repairs int) error {
	r := m.s
	jkey := candidatePrefix + key
	if _, ok := r.j.Call(journal.KindCall, jkey); ok {
		return nil
	}
	st, ok := m.replayedStat(jkey, parent, p.Commit)
	if !ok {
		var err error
		if st, err = sp.repo.Stat(r.ctx, parent, p.Commit); err != nil {
			return err
		}
	}
	idea := p.Text
	if len(idea) > ideaBytes {
		idea = idea[:ideaBytes]
	}
	c := Candidate{Key: strings.TrimSuffix(key, "/implement"), Env: t.Env, Task: t.Name, Idea: idea, Mechanism: p.Mechanism,
		Parent: parent, Commit: p.Commit, Ref: m.candidateRef(key), Repo: sp.repo.Dir, Repairs: repairs, DiffStat: st}
	return r.j.Append(journal.KindCall, jkey, c)
}

// replayedStat is the diffstat a replayed run journaled for the same
// candidate built on the same parent as the same commit: a diffstat of two
// commits is theirs alone, so it is not asked of git again.
func (m sourceMode) replayedStat(jkey, parent, commit string) (gitrepo.DiffStat, bool) {
	r := m.s
	if r.replay == nil {
		return gitrepo.DiffStat{}, false
	}
	var c Candidate
	d, ok := r.replay.j.Call(journal.KindCall, jkey)
	if !ok || json.Unmarshal(d, &c) != nil || c.Parent != parent || c.Commit != commit {
		return gitrepo.DiffStat{}, false
	}
	return c.DiffStat, true
}

// candidatesOf reads the built candidates a journal records, in order.
func candidatesOf(j *journal.Journal) ([]Candidate, []SeedSource) {
	ev, err := j.Events(journal.KindCall)
	if err != nil {
		return nil, nil
	}
	var out []Candidate
	var seeds []SeedSource
	byKey := map[string]int{}
	for _, e := range ev {
		switch {
		case strings.HasPrefix(e.Key, candidatePrefix):
			var c Candidate
			if json.Unmarshal(e.Data, &c) == nil {
				byKey[c.Key] = len(out)
				out = append(out, c)
			}
		case strings.HasPrefix(e.Key, attemptPrefix):
			var a attemptRecord
			if json.Unmarshal(e.Data, &a) != nil {
				continue
			}
			if i, ok := byKey[a.Candidate]; ok {
				out[i].repaired(a)
			}
		case strings.HasPrefix(e.Key, seedKeyPrefix):
			var rec sourceRecord
			if env, task, ok := strings.Cut(strings.TrimPrefix(e.Key, seedKeyPrefix), "/"); ok && json.Unmarshal(e.Data, &rec) == nil {
				seeds = append(seeds, SeedSource{Env: env, Task: task, Commit: rec.Commit, Repository: rec.Repository})
			}
		}
	}
	return out, seeds
}

// SeedSource is the seed program a source-mode run began a task from: its
// commit, and for an imported source the repository Assay made of it
// (empty for the user's own repository, which the plan names).
type SeedSource struct {
	Env        string `json:"env"`
	Task       string `json:"task"`
	Commit     string `json:"commit"`
	Repository string `json:"repository,omitempty"`
}
