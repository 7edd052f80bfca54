package compiler

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// TestLoRARank: lora_rank of a critic training's sft and grpo blocks, a
// continual block and an RL loop's update block lowers into the plan's
// updates; unset it is 0 (the command's default).
func TestLoRARank(t *testing.T) {
	p, ds := Compile(loadSpec(t, "../specs/critic-continual.hcl"), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	v := p.Variants[0]
	ct, cc := v.PhaseOf(plan.PhaseCriticTraining).CriticTraining, continualOf(v).Training
	for name, u := range map[string]*plan.CriticUpdate{"sft": ct.SFT, "grpo": ct.GRPO, "continual sft": cc.SFT, "continual grpo": cc.GRPO} {
		if u == nil || u.LoRARank != 32 {
			t.Errorf("%s: %+v, want lora_rank 32", name, u)
		}
	}

	loop := lm2lmUpdateLoop(t)
	rank := func(src string) int { return loop(src).LoRARank }
	src := specSource(t, "lm2lm.hcl")
	if r := rank(src); r != 0 {
		t.Errorf("unset: lora_rank %d, want 0", r)
	}
	set, _ := mutate(t, src, `    adapter = "lm2lm"`, "    adapter = \"lm2lm\"\n    lora_rank = 16")
	if r := rank(set); r != 16 {
		t.Errorf("set: lora_rank %d, want 16", r)
	}
}

// TestLoRARankRefused: a rank where no command trains an adapter (a critic
// whose offline plugin trains itself, a tinylm trainer, a frozen critic),
// or out of range, is refused at the field.
func TestLoRARankRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, spec, over, code, want string
	}{
		{"offline sft", "laptop/critic-train.hcl", "critic_training \"critic\" {\n  sft {\n    lora_rank = 32\n  }\n}\n", CodeNotApplicable, "has no trainer"},
		{"offline grpo", "laptop/critic-train.hcl", "critic_training \"critic\" {\n  grpo {\n    lora_rank = 32\n  }\n}\n", CodeNotApplicable, "has no trainer"},
		{"offline continual", "laptop/critic-continual.hcl", "loop \"evolve\" {\n  continual {\n    lora_rank = 32\n  }\n}\n", CodeNotApplicable, "has no trainer"},
		{"rank 0", "critic-train.hcl", "critic_training \"critic\" {\n  sft {\n    lora_rank = 0\n  }\n}\n", CodeRange, "lora_rank must be 1 to 4096"},
		{"frozen", "critic-continual.hcl", "loop \"evolve\" {\n  continual {\n    enabled = false\n  }\n}\n", CodeNotApplicable, "lora_rank takes no effect"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, err := filepath.Abs(filepath.Join("..", "specs", c.spec))
			if err != nil {
				t.Fatal(err)
			}
			name := strings.ReplaceAll(c.name, " ", "_") + ".hcl"
			path := withSource(t, dir, name, fmt.Sprintf("extends = %q\n\n", base)+c.over)
			s, _, ds := load.Load(path, load.Options{})
			if !ds.HasErrors() {
				_, ds = Compile(s, Options{})
			}
			for _, d := range ds {
				if d.Code == c.code && strings.Contains(d.Summary, c.want) && strings.Contains(d.Summary, "lora_rank") && d.Range.Start.Line > 0 {
					return
				}
			}
			t.Fatalf("want %s %q at lora_rank, got:\n%s", c.code, c.want, ds.Format(0))
		})
	}
	// A tinylm trainer has no adapter rank.
	at := diag.Range{Filename: "t.hcl", Start: diag.Pos{Line: 3, Column: 5}}
	s := loadSpec(t, "../specs/critic-train.hcl")
	s.Plugins = append(s.Plugins, &spec.Plugin{Name: "tiny", NameRange: at, Kind: spec.Of("trainer", at), Source: spec.Of("builtin:tinylm", at)})
	s.CriticTrainings[0].SFT.Trainer = spec.Ref{Kind: "plugin", Name: "tiny", Set: true, Range: at}
	s.CriticTrainings[0].SFT.LoRARank = spec.Of(32, at)
	_, ds := Compile(s, Options{})
	for _, d := range ds {
		if d.Code == CodeNotApplicable && strings.Contains(d.Summary, "has no adapter rank") && d.Range == at {
			return
		}
	}
	t.Errorf("a tinylm trainer's lora_rank: want %s at the field, got:\n%s", CodeNotApplicable, ds.Format(0))
}
