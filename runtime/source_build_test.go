package runtime

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/base/textdiff"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"

	"github.com/assay-lang/assay/base/gitrepo/gittest"
)

// countingBuild is a build command that appends a line to counter (outside
// every worktree) and fails unless params.txt sets the rate to 0.25.
func countingBuild(t *testing.T) (build []string, builds func() int) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	counter := filepath.Join(t.TempDir(), "builds")
	// The script is the test's own, never a spec's or an LLM's.
	script := `echo x >> "$1"; grep -q 'rate = 0.25' params.txt || { echo 'build: the rate must be 0.25'; exit 1; }`
	return []string{"sh", "-c", script, "sh", counter}, func() int {
		b, _ := os.ReadFile(counter)
		return strings.Count(string(b), "\n")
	}
}

func ratePatch(to string) string {
	return textdiff.Unified("a/params.txt", "b/params.txt", seedParams, strings.Replace(seedParams, "0.5", to, 1))
}

func openJournal(t *testing.T, dir string) *journal.Journal {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// buildFigures are the measured figures a build moves.
func buildFigures(r *service) [4]int {
	r.measured.mu.Lock()
	defer r.measured.mu.Unlock()
	var f [4]int
	if b := r.measured.m.Roles["builder"]; b != nil {
		f[0], f[1] = b.Built, b.BuildFailed
	}
	if l := r.measured.m.Loops["L"]; l != nil {
		f[2], f[3] = l.Repairs, l.BuildFailed
	}
	return f
}

const buildKey = "loop/tiny/t0/1/implement"

// A resume and a replay of real runs take each build attempt's outcome
// from the journal: no build runs, the same commit is made the
// candidate's, the replay's own ref points at it, and the figures are the
// first run's. A replay that trains real runs again builds again.
func TestSourceBuildOutcomesReused(t *testing.T) {
	repo := seedRepo(t)
	build, builds := countingBuild(t)
	dir1 := t.TempDir()
	idea := plugins.Proposal{ID: "p", Text: "quarter the rate"}
	j1 := openJournal(t, dir1)
	r1 := sourceServiceOn(t, &scriptedBuilder{patches: []string{ratePatch("0.75"), ratePatch("0.25")}}, repo, j1, 1, build, Options{ID: "run-1"})
	p1, ok, err := r1.implement("builder", "L", buildKey, r1.tasks.find("tiny", "t0"), idea)
	if err != nil || !ok || builds() != 2 {
		t.Fatalf("first run: ok %v, err %v, %d builds (want 2: a failed one and its repair)", ok, err, builds())
	}
	want := buildFigures(r1)
	j1.Close()

	j2 := openJournal(t, dir1)
	b2 := &scriptedBuilder{patches: []string{ratePatch("0.75")}}
	r2 := sourceServiceOn(t, b2, repo, j2, 1, build, Options{ID: "run-1", Resume: true})
	p2, ok, err := r2.implement("builder", "L", buildKey, r2.tasks.find("tiny", "t0"), idea)
	if err != nil || !ok || p2.Commit != p1.Commit || len(b2.reqs) != 0 {
		t.Fatalf("resume: ok %v, err %v, commit %s want %s, %d builder calls", ok, err, p2.Commit, p1.Commit, len(b2.reqs))
	}
	if n := builds(); n != 2 {
		t.Errorf("the resume built %d times, want none", n-2)
	}
	if d := cmp.Diff(want, buildFigures(r2)); d != "" {
		t.Errorf("resumed figures differ (-first +resumed):\n%s", d)
	}
	j2.Close()

	for _, runs := range []bool{true, false} {
		before := builds()
		src, err := journal.OpenReadOnly(filepath.Join(dir1, "journal.db"))
		if err != nil {
			t.Fatal(err)
		}
		j3 := openJournal(t, t.TempDir())
		r3 := sourceServiceOn(t, &scriptedBuilder{patches: []string{ratePatch("0.75")}}, repo, j3, 1, build, Options{ID: "run-2"})
		r3.replay = &replaySource{id: "run-1", j: src, runs: runs}
		p3, ok, err := r3.implement("builder", "L", buildKey, r3.tasks.find("tiny", "t0"), idea)
		if err != nil || !ok || p3.Commit != p1.Commit {
			t.Fatalf("replay (runs %t): ok %v, err %v, commit %s want %s", runs, ok, err, p3.Commit, p1.Commit)
		}
		if got := gitOut(t, repo, "rev-parse", "refs/assay/run-2/loop/tiny/t0/1"); got != p1.Commit {
			t.Errorf("replay (runs %t): its ref is at %s, want %s", runs, got, p1.Commit)
		}
		if n, wantN := builds()-before, map[bool]int{true: 0, false: 2}[runs]; n != wantN {
			t.Errorf("replay (runs %t) built %d times, want %d", runs, n, wantN)
		}
		if d := cmp.Diff(want, buildFigures(r3)); d != "" {
			t.Errorf("replay (runs %t) figures differ (-first +replay):\n%s", runs, d)
		}
		if cands, _ := candidatesOf(j3); len(cands) != 1 || cands[0].Files != 1 || cands[0].Ref != "refs/assay/run-2/loop/tiny/t0/1" {
			t.Errorf("replay (runs %t) candidates %+v", runs, cands)
		}
		j3.Close()
		src.Close()
	}
}

// A recorded failed build is given back to the builder as recorded, with
// no build: here a resume allowed one more repair than the first run had.
func TestSourceRecordedFailureReplayed(t *testing.T) {
	repo := seedRepo(t)
	build, builds := countingBuild(t)
	dir := t.TempDir()
	j1 := openJournal(t, dir)
	r1 := sourceServiceOn(t, &scriptedBuilder{patches: []string{ratePatch("0.75")}}, repo, j1, 0, build, Options{ID: "run-1"})
	if _, ok, err := r1.implement("builder", "L", buildKey, r1.tasks.find("tiny", "t0"), plugins.Proposal{ID: "p"}); err != nil || ok {
		t.Fatalf("first run: ok %v, err %v; want a failed build", ok, err)
	}
	j1.Close()
	j2 := openJournal(t, dir)
	var rec buildOutcome
	if d, ok := j2.Call(journal.KindCall, buildPrefix+buildKey); !ok || json.Unmarshal(d, &rec) != nil || !strings.Contains(rec.Failure, "the rate must be 0.25") {
		t.Fatalf("the failed build's outcome is not journaled: %+v", rec)
	}
	b2 := &scriptedBuilder{patches: []string{ratePatch("0.25")}}
	r2 := sourceServiceOn(t, b2, repo, j2, 1, build, Options{ID: "run-1", Resume: true})
	p, ok, err := r2.implement("builder", "L", buildKey, r2.tasks.find("tiny", "t0"), plugins.Proposal{ID: "p"})
	if err != nil || !ok || p.Commit == "" {
		t.Fatalf("resume: ok %v, err %v", ok, err)
	}
	if len(b2.reqs) != 1 || b2.reqs[0].Repair != 1 || b2.reqs[0].Failure != rec.Failure {
		t.Fatalf("the repair was told %+v, want the recorded failure %q", b2.reqs, rec.Failure)
	}
	if n := builds(); n != 2 {
		t.Errorf("%d builds, want 2 (the first run's and the repair's)", n)
	}
	j2.Close()
}

// A changed patch, or a recorded commit the repository no longer holds,
// is built again on resume.
func TestSourceBuildOutcomeRebuilt(t *testing.T) {
	repo := seedRepo(t)
	build, builds := countingBuild(t)
	dir := t.TempDir()
	var j *journal.Journal
	// resume opens the run's journal again, as a resumed run does (a
	// journal serves the calls it was opened with).
	resume := func() (sourceMode, *seedProgram) {
		if j != nil {
			j.Close()
		}
		j = openJournal(t, dir)
		r := sourceServiceOn(t, &scriptedBuilder{}, repo, j, 0, build, Options{ID: "run-1", Resume: true})
		return sourceMode{r}, r.tasks.find("tiny", "t0").src
	}
	defer func() { j.Close() }()
	idea := plugins.Proposal{ID: "p"}
	m, sp := resume()
	c1, _, err := m.buildOnce(sp, "k/implement", "k/implement", sp.base, sourceChange{Patch: ratePatch("0.25")}, idea, nil)
	if err != nil || builds() != 1 {
		t.Fatalf("built %s, err %v, %d builds", c1, err, builds())
	}
	m, sp = resume()
	if c, _, err := m.buildOnce(sp, "k/implement", "k/implement", sp.base, sourceChange{Patch: ratePatch("0.25")}, idea, nil); err != nil || c != c1 || builds() != 1 {
		t.Fatalf("the same attempt again: %s, err %v, %d builds; want %s and no build", c, err, builds(), c1)
	}
	changed := textdiff.Unified("a/params.txt", "b/params.txt", seedParams, "rate = 0.25\nwidth = 9\n")
	c2, _, err := m.buildOnce(sp, "k/implement", "k/implement", sp.base, sourceChange{Patch: changed}, idea, nil)
	if err != nil || c2 == c1 || builds() != 2 {
		t.Fatalf("a changed patch: %s, err %v, %d builds; want a new build", c2, err, builds())
	}
	m, sp = resume()
	var rec buildOutcome
	d, _ := j.Call(journal.KindCall, buildPrefix+"k/implement")
	if err := json.Unmarshal(d, &rec); err != nil || rec.Commit != c2 {
		t.Fatalf("record %+v (%v)", rec, err)
	}
	rec.Commit = strings.Repeat("ab", 20) // a commit the repository never held
	if err := j.Append(journal.KindCall, buildPrefix+"k/implement", rec); err != nil {
		t.Fatal(err)
	}
	m, sp = resume()
	if c, _, err := m.buildOnce(sp, "k/implement", "k/implement", sp.base, sourceChange{Patch: changed}, idea, nil); err != nil || c != c2 || builds() != 3 {
		t.Fatalf("a missing commit: %s, err %v, %d builds; want %s built again", c, err, builds(), c2)
	}
	if got := gitOut(t, repo, "rev-parse", "refs/assay/run-1/k"); got != c2 {
		t.Fatalf("ref at %s, want %s", got, c2)
	}
}

// A candidate's build adds and removes its worktree: no remove or prune
// of a worktree that is not there.
func TestSourceBuildWorktreeProcesses(t *testing.T) {
	r, _ := sourceService(t, &scriptedBuilder{patches: []string{ratePatch("0.25")}}, 0)
	starts := gittest.Logged(t)
	if _, ok, err := r.implement("builder", "", "k/implement", r.tasks.find("tiny", "t0"), plugins.Proposal{ID: "p"}); err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	var wt []string
	for _, line := range starts() {
		if strings.Contains(line, " worktree ") {
			wt = append(wt, line[strings.Index(line, " worktree ")+1:])
		}
	}
	if len(wt) != 2 || !strings.HasPrefix(wt[0], "worktree add") || !strings.HasPrefix(wt[1], "worktree remove") {
		t.Fatalf("worktree commands:\n%s", strings.Join(wt, "\n"))
	}
}

// A commit's context is read from git once: the proposer and the builder
// of its candidates are shown the same files.
func TestSourceContextReadOnce(t *testing.T) {
	r, repo := sourceService(t, &scriptedBuilder{}, 0)
	sp := r.tasks.find("tiny", "t0").src
	starts := gittest.Logged(t)
	first, err := sp.context(r.ctx, sp.base)
	if err != nil || len(first.Files) != 1 {
		t.Fatalf("%+v, %v", first, err)
	}
	n := len(starts())
	if again, err := sp.context(r.ctx, sp.base); err != nil || again != first || len(starts()) != n {
		t.Fatalf("the same commit's context read again: %d git processes after %d (%v)", len(starts()), n, err)
	}
	other := gitOut(t, repo, "commit-tree", "-p", sp.base, "-m", "x", sp.base+"^{tree}")
	if sc, err := sp.context(r.ctx, other); err != nil || sc.Commit != other || len(starts()) == n {
		t.Fatalf("another commit's context: %+v, %v", sc, err)
	}
}

// A build's environment is the one the plan gives it, the job environment:
// the variables it inherits (and no other of assay's, an LLM plugin's API
// key least of all) and the ones it sets.
func TestSourceBuildEnvironment(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	t.Setenv("OPENAI_API_KEY", "sk-not-for-builds")
	t.Setenv("ASSAY_TEST_PASSED", "yes")
	out := filepath.Join(t.TempDir(), "env")
	// The script is the test's own, never a spec's or an LLM's.
	build := []string{"sh", "-c", `env > "$1"`, "sh", out}
	r := sourceServiceOn(t, &scriptedBuilder{patches: []string{ratePatch("0.25")}}, seedRepo(t), openJournal(t, t.TempDir()), 0, build, Options{ID: "run-1"})
	task := r.tasks.find("tiny", "t0")
	task.src.src.BuildInherits = []string{"PATH", "HOME", "ASSAY_TEST_PASSED"}
	task.src.src.BuildEnv = []string{"SET_BY_PLAN=1"}
	if _, ok, err := r.implement("builder", "", "k/implement", task, plugins.Proposal{ID: "p"}); err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	if _, ok := got["OPENAI_API_KEY"]; ok {
		t.Error("the build inherited OPENAI_API_KEY")
	}
	if got["ASSAY_TEST_PASSED"] != "yes" || got["SET_BY_PLAN"] != "1" || got["PATH"] != os.Getenv("PATH") {
		t.Errorf("the build's environment lacks what the plan gives it:\n%s", b)
	}
	for k := range got {
		if !strings.Contains(" PATH HOME ASSAY_TEST_PASSED SET_BY_PLAN PWD SHLVL _ ", " "+k+" ") {
			t.Errorf("the build has %s, which the plan does not give it", k)
		}
	}
}
