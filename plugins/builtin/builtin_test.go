package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// TestMain serves a built-in plugin when the host starts this test binary
// as one, as it starts the assay binary.
func TestMain(m *testing.M) {
	builtin.Main()
	os.Exit(m.Run())
}

// Every built-in with a config schema is served, and nothing else.
func TestNamesMatchSchemas(t *testing.T) {
	var want []string
	for _, s := range pluginconfig.All {
		want = append(want, s.Builtin)
	}
	slices.Sort(want)
	if got := builtin.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, the config schemas declare %v", got, want)
	}
}

// openBuiltin locks the built-in plugin called name and starts it with the
// real host: a subprocess of this test binary in plugin mode.
func openBuiltin(t *testing.T, name, kind string) *host.Plugin {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	lock, err := host.Init(ctx, []host.Spec{{Name: name, Kind: kind, Source: host.BuiltinPrefix + name}},
		host.LockPathFor(filepath.Join(dir, "spec.hcl")), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := host.Open(ctx, lock, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestTinyLMSubprocess(t *testing.T) {
	tr := openBuiltin(t, "tinylm", plugins.KindTrainer).Trainer()
	ctx := context.Background()
	d, err := tr.Describe(ctx, &plugins.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Knobs) < 10 || d.Knobs[0].Mechanism == "" {
		t.Fatalf("Describe = %+v", d)
	}
	cfg := map[string]any{"steps": 200}
	run := func(id string, edits map[string]string) *plugins.RunResult {
		h, err := tr.Start(ctx, &plugins.RunRequest{RunID: id, Task: "grammar", Seed: 3, Config: cfg, Proposal: plugins.Proposal{Edits: edits}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Wait(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a := run("a", map[string]string{"width": "64"})
	b := run("b", map[string]string{"width": "64"})
	if a.Status != plugins.StatusFinished || !(a.Metric > 0 && a.Metric < 8) {
		t.Fatalf("run a: %+v", a)
	}
	if a.Metric != b.Metric {
		t.Errorf("same seed and proposal, different metrics over the wire: %v vs %v", a.Metric, b.Metric)
	}
	bad := run("c", map[string]string{"width": "huge"})
	if bad.Status != plugins.StatusInfeasible || !strings.Contains(bad.Reason, "invalid value") {
		t.Errorf("invalid proposal: %+v", bad)
	}
	if _, err := tr.Start(ctx, &plugins.RunRequest{RunID: "d", Config: map[string]any{"corpus": "nope"}}); err == nil {
		t.Error("unknown corpus accepted")
	}
}

func TestOfflineSubprocess(t *testing.T) {
	llm := openBuiltin(t, "offline", plugins.KindLLM).LLM()
	ctx := context.Background()
	knobs := []plugins.Knob{
		{Name: "width", Mechanism: "architecture", Default: "32", Values: []string{"16", "32", "64"}},
		{Name: "optimizer", Mechanism: "optimizer", Default: "adam", Values: []string{"sgd", "adam"}},
	}
	preq, _ := payload.Encode(payload.ProposeRequest{Task: "t", State: "t/0", Knobs: knobs, N: 8})
	propose := func(state []byte) *payload.ProposeResponse {
		resp, err := llm.Complete(ctx, &plugins.CompleteRequest{Role: plugins.RolePropose, Temperature: 1, Seed: 5, Payload: preq, State: state})
		if err != nil {
			t.Fatal(err)
		}
		var out payload.ProposeResponse
		if err := payload.Decode(resp.Payload, &out); err != nil {
			t.Fatal(err)
		}
		if resp.Usage.In == 0 || resp.Usage.Out == 0 {
			t.Errorf("usage %+v", resp.Usage)
		}
		return &out
	}
	first := propose(nil)
	if len(first.Proposals) != 8 {
		t.Fatalf("%d proposals", len(first.Proposals))
	}
	var samples []plugins.Sample
	for _, p := range first.Proposals {
		adv := -1.0
		if p.Edits["width"] == "64" {
			adv = 1
		}
		samples = append(samples, plugins.Sample{State: string(preq), Proposal: p, Advantage: adv})
	}
	up, err := llm.Update(ctx, &plugins.UpdateRequest{LearningRate: 1, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	if len(up.State) == 0 || up.Stats["step"] != 1 {
		t.Fatalf("Update = %+v", up)
	}
	// The same state and seed give the same proposals, across calls.
	if !cmp.Equal(propose(up.State), propose(up.State)) {
		t.Error("proposals from one checkpoint and seed differ")
	}
	creq, _ := payload.Encode(payload.CritiqueRequest{Task: "t", Parent: plugins.Proposal{ID: "a"}, Child: first.Proposals[0], Labels: payload.Labels3})
	resp, err := llm.Complete(ctx, &plugins.CompleteRequest{Role: plugins.RoleCritic, Temperature: 0.7, Seed: 1, Payload: creq})
	if err != nil {
		t.Fatal(err)
	}
	var verdict payload.CritiqueResponse
	if err := payload.Decode(resp.Payload, &verdict); err != nil || payload.LabelRank(payload.Labels3, verdict.Label) < 0 {
		t.Errorf("critic: %+v, %v", verdict, err)
	}
	if _, err := llm.Complete(ctx, &plugins.CompleteRequest{Role: "poet"}); err == nil {
		t.Error("unknown role accepted over the wire")
	}
}
