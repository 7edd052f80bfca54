package compiler

import (
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/load/loadtest"
)

// An update block's hyperparameters override its algorithm's, each on its
// own; those it leaves unset are the algorithm's, resolved into the plan.
func TestUpdateHyperparameters(t *testing.T) {
	src := specSource(t, "lm2lm.hcl")
	loop := lm2lmUpdateLoop(t)
	dapo := plan.Algorithms["dapo"]
	l := loop(src)
	if l.Algorithm != "dapo" || l.ClipLow != dapo.ClipLow || l.ClipHigh != dapo.ClipHigh || l.KLCoef != dapo.KLCoef || l.Epochs != dapo.Epochs || l.WeightDecay != dapo.WeightDecay {
		t.Errorf("defaults: %s clip [%v, %v] kl %v epochs %d wd %v, want dapo's %+v", l.Algorithm, l.ClipLow, l.ClipHigh, l.KLCoef, l.Epochs, l.WeightDecay, dapo)
	}
	set, _ := mutate(t, src, `    adapter = "lm2lm"`, `    adapter = "lm2lm"
    clip_high    = 0.3
    kl_coef      = 0.001
    epochs       = 2
    weight_decay = 0.1`)
	l = loop(set)
	if l.ClipLow != dapo.ClipLow || l.ClipHigh != 0.3 || l.KLCoef != 0.001 || l.Epochs != 2 || l.WeightDecay != 0.1 || l.TokenLevel != dapo.TokenLevel {
		t.Errorf("set: clip [%v, %v] kl %v epochs %d wd %v token-level %v, want [%v, 0.3] 0.001 2 0.1 %v",
			l.ClipLow, l.ClipHigh, l.KLCoef, l.Epochs, l.WeightDecay, l.TokenLevel, dapo.ClipLow, dapo.TokenLevel)
	}
}

// lm2lmUpdateLoop returns a function that compiles a version of
// specs/lm2lm.hcl's source and returns its loop with an update. lm2lm.hcl
// extends a base: each version is written over a copy of its chain and
// loaded through lang/load.
func lm2lmUpdateLoop(t *testing.T) func(src string) *plan.Loop {
	dir := t.TempDir()
	copied := loadtest.CopySpec(t, filepath.Join("..", "specs", "lm2lm.hcl"), dir)[0]
	return func(src string) *plan.Loop {
		t.Helper()
		s, _, ds := load.Load(withSource(t, dir, filepath.Base(copied), src), load.Options{})
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		p, ds := Compile(s, Options{})
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		for _, l := range p.Variants[0].Loops {
			if l.Update != nil {
				return l
			}
		}
		t.Fatal("no loop with an update")
		return nil
	}
}
