package pairs

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
)

// child is one hand-made candidate run of the test journal.
type child struct {
	key, cand, parentCand string
	task                  string
	metric                float64
	status                string
	unmeasured, noBase    bool
	summary               string
	// summaryAt is the key summary is journaled under (default
	// CAND/summarize, the first build's).
	summaryAt string
}

// writeRun journals a run by hand: reservations with lineage, results and
// summaries, as the runtime writes them.
func writeRun(t *testing.T, dir, id string, cs []child) {
	t.Helper()
	j, err := journal.Open(filepath.Join(runtime.RunDir(dir, id), runtime.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.SetMeta("run", map[string]any{"id": id, "plan": "hand", "hash": "sha256:abc", "variant": "default"}); err != nil {
		t.Fatal(err)
	}
	base := 2.0
	for _, c := range cs {
		res := journal.Reservation{Env: "e", Task: c.task, Minimize: true, Phase: "evolution.evolve",
			Proposal: &plugins.Proposal{ID: c.cand, Text: "idea " + c.cand, Edits: map[string]string{"lr": c.cand}}}
		if !c.noBase {
			res.Baseline = &base
		}
		if c.cand != "" {
			res.Lineage = &journal.Lineage{Candidate: c.cand, Parent: plugins.Proposal{ID: "p-" + c.parentCand}, ParentCandidate: c.parentCand, ParentUnmeasured: c.unmeasured}
		}
		if _, err := j.Reserve(c.key, res); err != nil {
			t.Fatal(err)
		}
		if err := j.Finished(c.key, &plugins.RunResult{RunID: c.key, Status: c.status, Metric: c.metric}); err != nil {
			t.Fatal(err)
		}
		if c.summary != "" {
			rec, _ := json.Marshal(map[string]any{"role": "summarizer", "payload": map[string]string{"summary": c.summary}, "in": 1, "out": 1})
			at := c.summaryAt
			if at == "" {
				at = c.cand + "/summarize"
			}
			if err := j.Append(journal.KindCall, at, json.RawMessage(rec)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// handRun is a run of task "a" (metric minimized, baseline 2.0) whose
// reference configuration has six finished children (and one infeasible,
// and one whose first attempt failed), one child of a child, and
// candidates that make no pair.
//
// Relative improvements over the baseline, (2.0 - m) / 2.0:
//
//	c0 1.84: 0.08   c1 1.90: 0.05   c2 1.92: 0.04
//	c3 1.98: 0.01   c4 2.02: -0.01  c5 2.04: -0.02
//
// mu = 0.15/6 = 0.025; deviations 0.055 0.025 0.015 -0.015 -0.035 -0.045,
// squares sum 0.00735, /6 = 0.001225, sigma = 0.035; z = 1.571, 0.714,
// 0.429, -0.429, -1.0, -1.286. Four children improve (>= 3), so:
// c0 MediumWin (z > 1, d <= 0.10), c1 and c2 SmallWin (z > 0.2), c3 Tie
// (d >= 0), c4 and c5 Lose (z < -0.2). 3-way: c0..c3 improve, c4, c5 lose.
//
// c6 (1.80) is c0's child: (1.84 - 1.80) / 1.84 = 0.021739, improve; its
// parent has one child, fewer than three improving: no 5-way label.
func handRun() []child {
	return []child{
		{key: "c0", cand: "c0", task: "a", metric: 1.84, status: plugins.StatusFinished, summary: "c0 lowers lr"},
		{key: "c1", cand: "c1", task: "a", metric: 9, status: plugins.StatusFailed},
		{key: "c1~1", cand: "c1", task: "a", metric: 1.90, status: plugins.StatusFinished},
		{key: "c2", cand: "c2", task: "a", metric: 1.92, status: plugins.StatusFinished},
		{key: "c3", cand: "c3", task: "a", metric: 1.98, status: plugins.StatusFinished},
		{key: "c4", cand: "c4", task: "a", metric: 2.02, status: plugins.StatusFinished},
		{key: "c5", cand: "c5", task: "a", metric: 2.04, status: plugins.StatusFinished},
		{key: "cx", cand: "cx", task: "a", metric: 0, status: plugins.StatusInfeasible},
		{key: "c6", cand: "c6", parentCand: "c0", task: "a", metric: 1.80, status: plugins.StatusFinished, summary: "c6 adds warmup"},
		{key: "u", cand: "u", task: "a", metric: 1.5, status: plugins.StatusFinished, unmeasured: true},
		{key: "m", cand: "m", parentCand: "cx", task: "a", metric: 1.5, status: plugins.StatusFinished},
		{key: "nb", cand: "nb", task: "b", metric: 1.5, status: plugins.StatusFinished, noBase: true},
		{key: "cal", task: "a", metric: 1.7, status: plugins.StatusFinished}, // no lineage
	}
}

func TestReadHandLabels(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "r1", handRun())
	ps, skipped, err := Read(dir, []string{"r1"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ cand, key, l3, l5 string }
	var got []row
	for _, p := range ps {
		got = append(got, row{p.Candidate, p.RunKey, p.Label3, p.Label5})
	}
	want := []row{
		{"c0", "c0", "improve", "MediumWin"},
		{"c1", "c1~1", "improve", "SmallWin"},
		{"c2", "c2", "improve", "SmallWin"},
		{"c3", "c3", "improve", "Tie"},
		{"c4", "c4", "lose", "Lose"},
		{"c5", "c5", "lose", "Lose"},
		{"c6", "c6", "improve", ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pairs:\n got %v\nwant %v", got, want)
	}
	if skipped[SkipParentUnmeasured] != 1 || skipped[SkipParentMissing] != 1 || skipped[SkipNoBaseline] != 1 {
		t.Errorf("skipped = %v, want one of each reason", skipped)
	}
	c6 := ps[6]
	if c6.Parent.Metric != 1.84 || c6.Child.Metric != 1.80 || c6.Parent.Summary != "c0 lowers lr" || c6.Child.Summary != "c6 adds warmup" {
		t.Errorf("c6 sides: parent %+v child %+v", c6.Parent, c6.Child)
	}
	if c6.Relative == nil || math.Abs(*c6.Relative-0.021739) > 1e-6 {
		t.Errorf("c6 relative improvement = %v, want 0.021739", c6.Relative)
	}
	c0 := ps[0]
	if c0.Parent.Metric != 2.0 || c0.ParentCandidate != "" || c0.Idea != "idea c0" || c0.Child.Edits["lr"] != "c0" ||
		c0.Run != "r1" || c0.PlanHash != "sha256:abc" || c0.Plan != "hand" || c0.Split != "train" {
		t.Errorf("c0 = %+v", c0)
	}
	var b bytes.Buffer
	if err := WriteJSONL(&b, ps[:1]); err != nil {
		t.Fatal(err)
	}
	// The commit field is present, empty, for a program of knob edits.
	if !strings.Contains(b.String(), `"commit":""`) {
		t.Errorf("no empty commit field: %s", b.String())
	}
	back, err := ReadJSONL(&b)
	if err != nil || len(back) != 1 || back[0].Label5 != "MediumWin" || back[0].Child.Summary != "c0 lowers lr" {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

// A candidate whose run failed and was repaired makes its pair from the
// repair's run, and the pair carries the repair's summary, on either
// side: not the first attempt's, which described a program never
// measured, and none where the repair was not summarized. Before, both
// sides carried the first attempt's summary.
func TestReadRepairedSummaries(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "r1", []child{
		{key: "k", cand: "k", task: "a", status: plugins.StatusError, summary: "k crashes at start"},
		{key: "k/repair/1", cand: "k", task: "a", metric: 1.8, status: plugins.StatusFinished, summary: "k lowers lr", summaryAt: "k/repair/1/summarize"},
		{key: "q", cand: "q", task: "a", status: plugins.StatusError, summary: "q crashes at start"},
		{key: "q/repair/1", cand: "q", task: "a", metric: 1.9, status: plugins.StatusFinished},
		{key: "g", cand: "g", parentCand: "k", task: "a", metric: 1.7, status: plugins.StatusFinished, summary: "g adds warmup"},
	})
	ps, _, err := Read(dir, []string{"r1"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Pair{}
	for _, p := range ps {
		got[p.Candidate] = p
	}
	if len(ps) != 3 {
		t.Fatalf("pairs %+v, want k, q and g", ps)
	}
	if k := got["k"]; k.RunKey != "k/repair/1" || k.Child.Summary != "k lowers lr" {
		t.Errorf("k: run %s, child summary %q; want the repair's", k.RunKey, k.Child.Summary)
	}
	if q := got["q"]; q.RunKey != "q/repair/1" || q.Child.Summary != "" {
		t.Errorf("q: run %s, child summary %q; want none (its repair was not summarized)", q.RunKey, q.Child.Summary)
	}
	if g := got["g"]; g.Parent.Summary != "k lowers lr" || g.Child.Summary != "g adds warmup" {
		t.Errorf("g: parent summary %q, child summary %q", g.Parent.Summary, g.Child.Summary)
	}
}

// TestReadBounds checks what Read refuses.
func TestReadBounds(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "r1", handRun()[:1])
	if _, _, err := Read(dir, []string{"r1", "r1"}); err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("a run named twice: %v", err)
	}
	if _, _, err := Read(dir, []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no run "nope"`) {
		t.Errorf("a missing run: %v", err)
	}
	if _, _, err := Read(dir, []string{"../x"}); err == nil {
		t.Error("a run id with a path was read")
	}
	if _, _, err := Read(dir, make([]string, MaxRuns+1)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("too many runs: %v", err)
	}
}
