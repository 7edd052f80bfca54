package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"assay/plugins"
	"assay/plugins/host"
	"assay/plugins/payload"
)

func openBuiltin(t *testing.T, name, kind string) *host.Plugin {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts a plugin binary")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	lock, err := host.Init(ctx, []host.Spec{{Name: name, Kind: kind, Source: host.BuiltinPrefix + name}},
		filepath.Join(dir, host.LockFileName), host.Options{ModuleRoot: root, CacheDir: filepath.Join(dir, "cache")})
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

func TestSubprocessRoundTrip(t *testing.T) {
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
