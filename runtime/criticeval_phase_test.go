package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// verdictLLM is a critic whose every vote is the child's "verdict" edit,
// so a test knows each verdict by hand.
type verdictLLM struct{ calls atomic.Int64 }

func (m *verdictLLM) Complete(_ context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	m.calls.Add(1)
	var in payload.CritiqueRequest
	if err := payload.Decode(req.Payload, &in); err != nil {
		return nil, err
	}
	out := payload.CritiqueResponse{Label: in.Child.Edits["verdict"], Reason: "scripted"}
	b, _ := json.Marshal(out)
	return &plugins.CompleteResponse{Text: out.Label, Payload: b, Usage: plugins.Usage{In: 10, Out: 2}, Output: out}, nil
}

func (m *verdictLLM) Update(context.Context, *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, plugins.ErrUnsupported
}

type verdictLoader struct{ llm *verdictLLM }

func (l verdictLoader) Open(_ context.Context, p *plan.Plugin) (Instance, error) {
	if p.Kind == plugins.KindLLM {
		return &inst{l: l.llm}, nil
	}
	return &inst{t: newFakeTrainer()}, nil
}

// writePairs writes a pairs file whose pair i has label3 labels[i], the
// critic's verdict verdicts[i] and split splits[i], and returns its path
// and digest.
func writePairs(t *testing.T, dir string, labels, verdicts, splits []string) (string, string) {
	t.Helper()
	return writePairsTo(t, filepath.Join(dir, "pairs.jsonl"), labels, verdicts, splits)
}

func writePairsTo(t *testing.T, path string, labels, verdicts, splits []string) (string, string) {
	t.Helper()
	var b strings.Builder
	for i := range labels {
		fmt.Fprintf(&b, `{"run":"r","plan":"p","plan_hash":"h","env":"tiny","task":"t0","candidate":"c%d","run_key":"c%d","minimize":true,`+
			`"parent":{"commit":"","id":"base","metric":2},"child":{"commit":"","id":"c%d","text":"idea %d","edits":{"verdict":%q},"metric":1},`+
			`"idea":"idea","label3":%q,"split":%q}`+"\n", i, i, i, i, verdicts[i], labels[i], splits[i])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return path, "sha256:" + hex.EncodeToString(sum[:])
}

// criticEvalPlan is evolvePlan with a critic_eval phase alone.
func criticEvalPlan(ce *plan.CriticEval) *plan.Plan {
	p := evolvePlan()
	v := p.Variants[0]
	v.Phases = []*plan.Phase{{Name: "critic_eval.bench", Kind: plan.PhaseCriticEval, CriticEval: ce}}
	return p
}

// TestCriticEvalPhase: a plan's critic_eval phase reads its pairs file
// when it starts, asks the critic its votes on the first Examples pairs
// of its split, journals its figures, which are the hand-computed ones,
// and answers a resumed run from the journal; a resumed run refuses a
// file that changed since the run began, before any call.
func TestCriticEvalPhase(t *testing.T) {
	dir := t.TempDir()
	// The first four train pairs judged improve, lose, lose, lose (every
	// vote the same) against improve, improve, lose, tie; the holdout
	// pair and the fifth train pair (beyond the plan's 4) are not judged.
	path, digest := writePairs(t, dir, []string{"improve", "improve", "lose", "improve", "tie", "lose"},
		[]string{"improve", "lose", "lose", "improve", "lose", "tie"}, []string{"train", "train", "train", "holdout", "train", "train"})
	ce := &plan.CriticEval{Data: "pairs.jsonl", Source: diag.Range{Filename: filepath.Join(dir, "s.hcl")}, Split: "train", Examples: 4,
		Critics: []string{"screen"}, K: []int{1, 5}, Thresholds: []float64{0.5}}
	l := verdictLoader{&verdictLLM{}}
	if _, err := runPlan(t, criticEvalPlan(ce), dir, "a", l, false); err != nil {
		t.Fatal(err)
	}
	if n := l.llm.calls.Load(); n != 4*5 {
		t.Fatalf("%d critic calls, want 4 pairs x 5 votes", n)
	}
	rep, err := LoadReport(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.CriticEvals) != 1 || len(rep.CriticEvals[0].Critics) != 1 {
		t.Fatalf("report's critic evaluations: %+v", rep.CriticEvals)
	}
	f := rep.CriticEvals[0]
	c := f.Critics[0]
	if f.Examples != 4 || c.Name != "screen" || len(c.Metrics) != 2 || len(c.Routing) != 1 {
		t.Fatalf("figures %+v, critic %+v", f, c)
	}
	// Dir-3: 2 of 4 right; Improve accuracy: 3 of 4 (the tie is no
	// improvement, judged none); F1: TP 1, FP 0, FN 1, so 2/3; no vote is
	// uncertain, so nothing is routed and neither error is recalled.
	m := c.Metrics[1]
	if m.K != 5 || m.Dir3 != 0.5 || m.ImproveAccuracy != 0.75 || m.F1 == nil || fmt.Sprintf("%.4f", *m.F1) != "0.6667" {
		t.Errorf("metrics at k 5: %+v", m)
	}
	r := c.Routing[0]
	if r.Errors != 2 || r.Routed != 0 || r.ErrorRecall == nil || *r.ErrorRecall != 0 {
		t.Errorf("routing at T 0.5: %+v", r)
	}
	var was string
	if j, err := journal.Open(filepath.Join(dir, "a", JournalFile)); err != nil {
		t.Fatal(err)
	} else if !j.Meta(metaCriticEvalData+"critic_eval.bench", &was) || was != digest {
		t.Errorf("journaled digest %q, want the file's %s", was, digest)
		j.Close()
	} else {
		j.Close()
	}
	// A resumed run takes every vote from the journal.
	if _, err := runPlan(t, criticEvalPlan(ce), dir, "a", l, true); err != nil {
		t.Fatal(err)
	}
	if n := l.llm.calls.Load(); n != 20 {
		t.Errorf("the resumed run called the critic %d more times", n-20)
	}
	// The file changed since the run began: its resume is refused before
	// any call, though the new file has enough pairs; a new run judges it.
	writePairsTo(t, path, []string{"lose", "lose", "lose", "lose"}, []string{"tie", "tie", "tie", "tie"}, []string{"train", "train", "train", "train"})
	_, err = runPlan(t, criticEvalPlan(ce), dir, "a", l, true)
	if err == nil || !strings.Contains(err.Error(), "changed since the run began") {
		t.Errorf("a changed pairs file on resume: %v", err)
	}
	if n := l.llm.calls.Load(); n != 20 {
		t.Errorf("a changed pairs file made %d calls", n-20)
	}
	if _, err := runPlan(t, criticEvalPlan(ce), dir, "b", l, false); err != nil {
		t.Errorf("a new run of the changed file: %v", err)
	}
}

// TestCriticEvalRefusesItsFile: a missing, malformed or short pairs file
// stops the run before any call, even with a phase before the bench,
// with the file, the count and what to do.
func TestCriticEvalRefusesItsFile(t *testing.T) {
	dir := t.TempDir()
	src := diag.Range{Filename: filepath.Join(dir, "s.hcl")}
	for _, c := range []struct {
		name, body string // body "-": no file
		says       []string
	}{
		{"missing", "-", []string{"pairs.jsonl", "no such file", "supply the file"}},
		{"malformed", `{"label3":"better","split":"train"}` + "\n", []string{"pairs.jsonl", `line 1: label3 "better"`}},
		{"short", `{"label3":"lose","split":"train"}` + "\n" + `{"label3":"lose","split":"holdout"}` + "\n",
			[]string{"pairs.jsonl", "holds 1 pairs of split train, and the plan judges and prices 2", "lower the critic_eval's limit"}},
	} {
		path := filepath.Join(dir, "pairs.jsonl")
		os.Remove(path)
		if c.body != "-" {
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ce := &plan.CriticEval{Data: "pairs.jsonl", Source: src, Split: "train", Examples: 2, Critics: []string{"screen"}, Thresholds: []float64{0.5}}
		p := criticEvalPlan(ce)
		// A critic evaluation after another phase that calls the critic:
		// the file is refused before that phase's calls too.
		p.Variants[0].Phases = append([]*plan.Phase{{Name: "critic_eval.first", Kind: plan.PhaseCriticEval,
			CriticEval: &plan.CriticEval{Data: "ok.jsonl", Source: src, Split: "train", Examples: 1, Critics: []string{"screen"}}}}, p.Variants[0].Phases...)
		writePairsTo(t, filepath.Join(dir, "ok.jsonl"), []string{"lose"}, []string{"lose"}, []string{"train"})
		l := verdictLoader{&verdictLLM{}}
		_, err := runPlan(t, p, dir, "r-"+strings.ReplaceAll(c.name, " ", "-"), l, false)
		if err == nil {
			t.Errorf("%s: the run judged it", c.name)
			continue
		}
		for _, w := range c.says {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v: want %q", c.name, err, w)
			}
		}
		if n := l.llm.calls.Load(); n != 0 {
			t.Errorf("%s: %d calls before the refusal", c.name, n)
		}
	}
}

// TestCriticTrainingFileRefusedFirst: a critic training's pairs file that
// is missing or short stops the run before its first phase, whatever
// phases come before the training's.
func TestCriticTrainingFileRefusedFirst(t *testing.T) {
	dir := t.TempDir()
	src := diag.Range{Filename: filepath.Join(dir, "s.hcl")}
	writePairsTo(t, filepath.Join(dir, "ok.jsonl"), []string{"lose"}, []string{"lose"}, []string{"train"})
	writePairsTo(t, filepath.Join(dir, "short.jsonl"), []string{"lose"}, []string{"lose"}, []string{"train"})
	for _, c := range []struct{ name, pairs, says string }{
		{"missing", "missing.jsonl", "no such file"},
		{"short", "short.jsonl", "holds 1 pairs of split \"train\""},
	} {
		p := criticEvalPlan(&plan.CriticEval{Data: "ok.jsonl", Source: src, Split: "train", Examples: 1, Critics: []string{"screen"}, Thresholds: []float64{0.5}})
		ct := &plan.CriticTraining{Name: "ct", Labels: "3way", Pairs: c.pairs, Source: src, Split: "train", Examples: 2, MaxPairs: 100}
		p.Variants[0].Phases = append(p.Variants[0].Phases, &plan.Phase{Name: "critic_training.ct", Kind: plan.PhaseCriticTraining, CriticTraining: ct})
		l := verdictLoader{&verdictLLM{}}
		_, err := runPlan(t, p, dir, "r-"+c.name, l, false)
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "critic training ct") {
			t.Errorf("%s: %v, want a refusal of the critic training's file saying %q", c.name, err, c.says)
		}
		if n := l.llm.calls.Load(); n != 0 {
			t.Errorf("%s: %d calls before the refusal", c.name, n)
		}
	}
}
