package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// TestResumeKeepsTheRunsVariant: a run of a sweep's second variant,
// resumed without naming a variant, continues that variant (not the
// first), and a resume naming another variant is refused, so the
// variants of a sweep never share a journal.
func TestResumeKeepsTheRunsVariant(t *testing.T) {
	p := lm2lmPlan()
	b, err := json.Marshal(p.Variants[0])
	if err != nil {
		t.Fatal(err)
	}
	second := new(plan.Variant)
	if err := json.Unmarshal(b, second); err != nil {
		t.Fatal(err)
	}
	first := p.Variants[0].Name
	second.Name, second.Seed = "second", p.Variants[0].Seed+1
	p.Variants = append(p.Variants, second)
	dir := t.TempDir()
	l := &testLoader{trainer: newFakeTrainer()}
	if _, err := Run(context.Background(), p, Options{ID: "s", Dir: dir, Plugins: l, Variant: "second"}); err != nil {
		t.Fatalf("run: %v", err)
	}
	if _, err := Run(context.Background(), nil, Options{ID: "s", Dir: dir, Plugins: l, Resume: true, Variant: first}); err == nil || !strings.Contains(err.Error(), `is variant "second"`) {
		t.Errorf("resume as variant %q: got %v, want a refusal naming the run's variant", first, err)
	}
	if _, err := Run(context.Background(), nil, Options{ID: "s", Dir: dir, Plugins: l, Resume: true}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	st, err := ReadStatus(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	if st.Variant != "second" || st.Seed != second.Seed {
		t.Errorf("resumed run is variant %q seed %d, want %q seed %d", st.Variant, st.Seed, "second", second.Seed)
	}
}
