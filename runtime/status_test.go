package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// writeRun journals a run id in dir with the given state and reason and
// one real run of each result status; it returns the journal still open
// when keepOpen is set (the run lock held, as by a live run).
func writeRun(t *testing.T, dir, id, state, reason string, pid int, keepOpen bool) *journal.Journal {
	t.Helper()
	j, err := journal.Open(filepath.Join(dir, id, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	j.SetMeta("run", runMeta{ID: id, Plan: "p", Variant: "v", PID: pid})
	j.SetMeta("state", state)
	if reason != "" {
		j.SetMeta("reason", reason)
	}
	for i, st := range []string{plugins.StatusFinished, plugins.StatusFinished, plugins.StatusInfeasible, plugins.StatusFailed, ""} {
		key := id + "-r" + string(rune('a'+i))
		if _, err := j.Reserve(key, journal.Reservation{GPUHours: 1}); err != nil {
			t.Fatal(err)
		}
		if st != "" {
			j.Finished(key, &plugins.RunResult{RunID: key, Status: st})
		}
	}
	if keepOpen {
		t.Cleanup(func() { j.Close() })
		return j
	}
	j.Close()
	return nil
}

// One corrupt or empty journal does not hide the other runs: each is
// listed with a clear state and the reason.
func TestListRunsWithBadJournals(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "good", StateFinished, "", 0, false)
	os.MkdirAll(filepath.Join(dir, "corrupt"), 0o755)
	os.WriteFile(filepath.Join(dir, "corrupt", JournalFile), []byte(strings.Repeat("garbage ", 200)), 0o644)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	os.WriteFile(filepath.Join(dir, "empty", JournalFile), nil, 0o644)

	list, err := ListRuns(dir)
	if err != nil {
		t.Fatalf("ListRuns: %v", err)
	}
	got := map[string]*Status{}
	for _, s := range list {
		got[s.ID] = s
	}
	if s := got["good"]; s == nil || s.State != StateFinished {
		t.Errorf("good run: %+v", s)
	}
	if s := got["corrupt"]; s == nil || s.State != StateUnreadable || !strings.Contains(s.Reason, "cannot be read") {
		t.Errorf("corrupt run: %+v, want state %q with the reason", s, StateUnreadable)
	}
	if s := got["empty"]; s == nil || s.State != StateEmpty || s.Reason == "" {
		t.Errorf("empty run: %+v, want state %q with the reason", s, StateEmpty)
	}
	if _, err := ReadStatus(dir, "corrupt"); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("status of the corrupt run: %v", err)
	}
	st, err := ReadStatus(dir, "empty")
	if err != nil || st.State != StateEmpty {
		t.Errorf("status of the empty run: %+v, %v", st, err)
	}
}

// A journal with tables but no run record (its write-ahead log was lost,
// or the run stopped at once) is "empty", not state "".
func TestStatusWithoutRunRecord(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(filepath.Join(dir, "bare", JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	st, err := ReadStatus(dir, "bare")
	if err != nil || st.State != StateEmpty || !strings.Contains(st.Reason, "no run record") {
		t.Errorf("status = %+v, %v; want state %q", st, err, StateEmpty)
	}
}

// The reason of an earlier interruption is not shown once the run
// finished; counts each have one meaning.
func TestStatusReasonAndCounts(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "r", StateFinished, "context canceled", 0, false)
	st, err := ReadStatus(dir, "r")
	if err != nil {
		t.Fatal(err)
	}
	if st.Reason != "" {
		t.Errorf("finished run shows the stale reason %q", st.Reason)
	}
	if st.RealRuns != 5 || st.Finished != 2 || st.Infeasible != 1 || st.Failed != 1 || st.InFlight != 1 {
		t.Errorf("counts: %d real, %d finished, %d infeasible, %d failed, %d in flight; want 5, 2, 1, 1, 1",
			st.RealRuns, st.Finished, st.Infeasible, st.Failed, st.InFlight)
	}
	b, _ := json.Marshal(st)
	var m map[string]any
	json.Unmarshal(b, &m)
	for k, want := range map[string]float64{"finished_runs": 2, "infeasible_runs": 1, "failed_runs": 1, "in_flight_runs": 1, "real_runs": 5} {
		if m[k] != want {
			t.Errorf("JSON %s = %v, want %v", k, m[k], want)
		}
	}
	writeRun(t, dir, "f", StateFailed, "trainer exploded", 0, false)
	if st, _ := ReadStatus(dir, "f"); st.Reason != "trainer exploded" {
		t.Errorf("failed run reason %q", st.Reason)
	}
}

// A run whose lock is held is running, whoever recorded what; the holder
// is named. Once released, a run recorded as running is interrupted.
func TestStatusHolder(t *testing.T) {
	dir := t.TempDir()
	// pid 0 is never alive: liveness comes from the lock alone.
	j := writeRun(t, dir, "live", StateRunning, "", 0, true)
	st, err := ReadStatus(dir, "live")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != StateRunning || st.Holder == nil || st.Holder.PID != os.Getpid() {
		t.Errorf("held run: state %q holder %+v, want running by this process", st.State, st.Holder)
	}
	j.Close()
	if st, _ := ReadStatus(dir, "live"); st.State != StateInterrupted || st.Holder != nil {
		t.Errorf("released run: state %q holder %+v, want interrupted", st.State, st.Holder)
	}
}

// A resumed run that finishes clears the interruption's reason in the
// journal itself, not only in what status shows.
func TestResumeClearsReason(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, lm2lmPlan(), Options{ID: "i", Dir: dir, Plugins: &testLoader{trainer: newFakeTrainer()}})
	if err == nil || res == nil || res.State != StateInterrupted {
		t.Fatalf("cancelled run: %+v, %v; want interrupted", res, err)
	}
	if _, err := runPlan(t, nil, dir, "i", &testLoader{trainer: newFakeTrainer()}, true); err != nil {
		t.Fatal(err)
	}
	j, err := journal.OpenReadOnly(filepath.Join(dir, "i", JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var reason, state string
	j.Meta("reason", &reason)
	j.Meta("state", &state)
	if state != StateFinished || reason != "" {
		t.Errorf("after resume: state %q reason %q, want finished and no reason", state, reason)
	}
}
