package model

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins"
)

func mustCorpus(t testing.TB, name string) *Corpus {
	t.Helper()
	c, err := LoadCorpus(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDeterministic(t *testing.T) {
	c := mustCorpus(t, CorpusGrammar)
	h, err := DefaultHyper().Apply(map[string]string{"activation": "gelu", "depth": "2"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Hyper: h, Corpus: c, Steps: 150, Seed: 7}
	a, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(a.ValBPB) != math.Float64bits(b.ValBPB) || math.Float64bits(a.TrainBPB) != math.Float64bits(b.TrainBPB) {
		t.Errorf("same seed, different results: %v/%v vs %v/%v", a.ValBPB, a.TrainBPB, b.ValBPB, b.TrainBPB)
	}
	cfg.Seed = 8
	d, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d.ValBPB == a.ValBPB {
		t.Errorf("different seeds gave identical val bpb %v", a.ValBPB)
	}
	// The default scores DefaultEvalPositions positions; fewer score
	// another sample of the same validation text.
	cfg.Seed, cfg.EvalPositions = 7, DefaultEvalPositions
	if e, err := Train(context.Background(), cfg); err != nil || math.Float64bits(e.ValBPB) != math.Float64bits(a.ValBPB) {
		t.Errorf("eval positions %d, the default: val bpb %v (%v), want %v", cfg.EvalPositions, e, err, a.ValBPB)
	}
	cfg.EvalPositions = 256
	if e, err := Train(context.Background(), cfg); err != nil || e.ValBPB == a.ValBPB || math.Abs(e.ValBPB-a.ValBPB) > 0.2 {
		t.Errorf("eval positions 256: val bpb %v (%v), want near %v but not it", e, err, a.ValBPB)
	}
}

// TestKnobsMoveMetric checks that single-knob changes move validation bpb
// by more than the seed-to-seed spread, in both directions.
func TestKnobsMoveMetric(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 15 models")
	}
	c := mustCorpus(t, CorpusGrammar)
	seeds := []uint64{1, 2, 3}
	measure := func(edits map[string]string) (mean, std float64) {
		h, err := DefaultHyper().Apply(edits)
		if err != nil {
			t.Fatal(err)
		}
		var xs []float64
		for _, s := range seeds {
			r, err := Train(context.Background(), Config{Hyper: h, Corpus: c, Steps: 1000, Seed: s})
			if err != nil {
				t.Fatalf("%v: %v", edits, err)
			}
			xs = append(xs, r.ValBPB)
		}
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		for _, x := range xs {
			std += (x - mean) * (x - mean)
		}
		return mean, math.Sqrt(std / float64(len(xs)-1))
	}
	base, baseStd := measure(nil)
	for _, tc := range []struct {
		edits  map[string]string
		better bool
	}{
		{map[string]string{"learning_rate": "0.01"}, true},
		{map[string]string{"width": "64"}, true},
		{map[string]string{"lr_schedule": "cosine"}, false},
		{map[string]string{"optimizer": "momentum"}, false},
	} {
		m, s := measure(tc.edits)
		noise := 3 * math.Max(math.Max(baseStd, s), 0.005)
		t.Logf("%v: %.4f ± %.4f (baseline %.4f ± %.4f)", tc.edits, m, s, base, baseStd)
		if tc.better && !(m < base-noise) {
			t.Errorf("%v: val bpb %.4f, want below baseline %.4f by more than %.4f", tc.edits, m, base, noise)
		}
		if !tc.better && !(m > base+noise) {
			t.Errorf("%v: val bpb %.4f, want above baseline %.4f by more than %.4f", tc.edits, m, base, noise)
		}
	}
}

func TestApplyRejects(t *testing.T) {
	for _, tc := range []struct {
		edits map[string]string
		want  string
	}{
		{map[string]string{"dropout": "0.1"}, `unknown knob "dropout"`},
		{map[string]string{"width": "65"}, `invalid value "65"`},
		{map[string]string{"activation": "swish"}, `invalid value "swish"`},
		{map[string]string{"learning_rate": "fast"}, `invalid value "fast"`},
	} {
		_, err := DefaultHyper().Apply(tc.edits)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Apply(%v) = %v, want error containing %q", tc.edits, err, tc.want)
		}
	}
	h, err := DefaultHyper().Apply(map[string]string{"learning_rate": "0.0100", "width": " 64 "})
	if err != nil || h.LearningRate != 0.01 || h.Width != 64 {
		t.Errorf("numeric spelling: %+v, %v", h, err)
	}
	for _, k := range Knobs() {
		if k.Mechanism == "" || len(k.Values) < 2 {
			t.Errorf("knob %s lacks a mechanism or values", k.Name)
		}
	}
}

func TestDivergedRun(t *testing.T) {
	c := mustCorpus(t, CorpusGrammar)
	h, _ := DefaultHyper().Apply(map[string]string{"learning_rate": "1"})
	_, err := Train(context.Background(), Config{Hyper: h, Corpus: c, Steps: 300, Seed: 1})
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("lr 1: err = %v, want ErrDiverged", err)
	}
}

func startWait(t *testing.T, tr *Trainer, req *plugins.RunRequest) *plugins.RunResult {
	t.Helper()
	ctx := context.Background()
	h, err := tr.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTrainer(t *testing.T) {
	tr := NewTrainer()
	cfg := map[string]any{"steps": float64(100)}
	ok := startWait(t, tr, &plugins.RunRequest{RunID: "r1", Task: "opticks", Seed: 1, Config: cfg,
		Proposal: plugins.Proposal{Edits: map[string]string{"width": "16"}}})
	if ok.Status != plugins.StatusFinished || !(ok.Metric > 0) || !strings.Contains(ok.Logs, "corpus opticks") {
		t.Fatalf("finished run: %+v", ok)
	}
	// Idempotent: the same RunID does not run again (a different proposal
	// under that id would otherwise change the metric).
	again := startWait(t, tr, &plugins.RunRequest{RunID: "r1", Task: "opticks", Seed: 1, Config: cfg,
		Proposal: plugins.Proposal{Edits: map[string]string{"width": "64"}}})
	if again.Metric != ok.Metric {
		t.Errorf("second Start of r1 ran again: %v vs %v", again.Metric, ok.Metric)
	}
	for _, tc := range []struct {
		edits map[string]string
		want  string
	}{
		{map[string]string{"widht": "16"}, "unknown knob"},
		{map[string]string{"learning_rate": "1"}, "diverged"},
	} {
		res := startWait(t, tr, &plugins.RunRequest{RunID: "bad-" + tc.want, Seed: 1, Config: cfg, Proposal: plugins.Proposal{Edits: tc.edits}})
		if res.Status != plugins.StatusInfeasible || !strings.Contains(res.Reason, tc.want) {
			t.Errorf("%v: %s %q, want infeasible with %q", tc.edits, res.Status, res.Reason, tc.want)
		}
	}
	if _, err := tr.Start(context.Background(), &plugins.RunRequest{RunID: "c", Config: map[string]any{"stpes": 3}}); err == nil {
		t.Error("unknown config key accepted")
	}
	// A run this process never started (the plugin restarted) is not a
	// failed run: the runtime must start it again without a new attempt.
	unknown, err := tr.Wait(context.Background(), &plugins.RunHandle{RunID: "never"})
	if !errors.Is(err, plugins.ErrUnknownRun) || unknown != nil || !strings.Contains(err.Error(), "never") {
		t.Errorf("unknown run: %+v, %v; want ErrUnknownRun naming the run", unknown, err)
	}
	if _, err := tr.Start(context.Background(), &plugins.RunRequest{RunID: "c2", Config: map[string]any{"steps": -1}}); !errors.Is(err, plugins.ErrConfig) {
		t.Errorf("bad config: %v, want ErrConfig", err)
	}
	if _, err := tr.Describe(context.Background(), &plugins.DescribeRequest{Config: map[string]any{"corpus": "nope"}}); !errors.Is(err, plugins.ErrConfig) {
		t.Errorf("bad config in Describe: %v, want ErrConfig", err)
	}
}

// A run that ended in one trainer process is collected, not trained again,
// by the next (the plugin was restarted, or the experiment resumed): by
// its handle, and by a second Start of its RunID.
func TestTrainerReattachesAfterRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work", "r1")
	cfg := map[string]any{"steps": float64(50)}
	req := &plugins.RunRequest{RunID: "r1", Task: "opticks", Seed: 1, Config: cfg, WorkDir: dir,
		Proposal: plugins.Proposal{Edits: map[string]string{"width": "16"}}}
	first := NewTrainer()
	h, err := first.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := first.Wait(context.Background(), h)
	if err != nil || want.Status != plugins.StatusFinished {
		t.Fatalf("first run: %+v, %v", want, err)
	}
	// A later process, with a proposal that would train to another
	// metric under the same id: it must not train at all.
	later := NewTrainer()
	got, err := later.Wait(context.Background(), h)
	if err != nil || got.Metric != want.Metric {
		t.Fatalf("Wait on the handle in a new process: %+v, %v; want the first result", got, err)
	}
	other := *req
	other.Proposal = plugins.Proposal{Edits: map[string]string{"width": "64"}}
	again := startWait(t, NewTrainer(), &other)
	if again.Metric != want.Metric {
		t.Errorf("a second Start of r1 in a new process trained again: %v vs %v", again.Metric, want.Metric)
	}
	// A run that left no result is unknown to a new process.
	if _, err := NewTrainer().Wait(context.Background(), &plugins.RunHandle{RunID: "r2", Handle: filepath.Join(t.TempDir(), "r2")}); !errors.Is(err, plugins.ErrUnknownRun) {
		t.Errorf("a run with no result: %v, want ErrUnknownRun", err)
	}
}

func TestTrainerCancel(t *testing.T) {
	tr := NewTrainer()
	ctx := context.Background()
	h, err := tr.Start(ctx, &plugins.RunRequest{RunID: "long", Seed: 1, Config: map[string]any{"steps": 1_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := tr.Wait(wctx, h); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with a short deadline: %v", err)
	}
	if err := tr.Cancel(ctx, h); err != nil {
		t.Fatal(err)
	}
	res, err := tr.Wait(ctx, h)
	if err != nil || res.Status != plugins.StatusFailed || res.Reason != "cancelled" {
		t.Errorf("cancelled run: %+v, %v", res, err)
	}
}

// A run stops at its time limit (the run's high hours, which the caps hold
// for it), whatever its steps: steps = 1e9 is a failed run past its limit,
// not a run without end.
func TestTrainerTimeLimit(t *testing.T) {
	tr := NewTrainer()
	h, err := tr.Start(context.Background(), &plugins.RunRequest{RunID: "endless", Seed: 1, TimeLimitSeconds: 0.2, Config: map[string]any{"steps": 1e9}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := tr.Wait(wctx, h)
	if err != nil {
		t.Fatalf("the run did not stop at its time limit: %v", err)
	}
	if res.Status != plugins.StatusFailed || !strings.Contains(res.Reason, "time limit of 200ms exceeded") || res.Seconds > 5 {
		t.Errorf("run past its time limit: %s %q after %.1f s, want failed at its limit", res.Status, res.Reason, res.Seconds)
	}
}

// BenchmarkTrainRun is one full default training run.
func BenchmarkTrainRun(b *testing.B) {
	c := mustCorpus(b, CorpusGrammar)
	for i := 0; b.Loop(); i++ {
		if _, err := Train(context.Background(), Config{Hyper: DefaultHyper(), Corpus: c, Steps: DefaultSteps, Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
}
