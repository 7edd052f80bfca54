package contract

import (
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// pricedSpecs are laptop-scale specs of every kind of loop and role (the
// quickstart, an LM2LM evaluation with a world model, a screened GRPO
// with a summarizer and a critic, a code twin with a builder), cut short
// as the other contract tests cut them.
var pricedSpecs = []string{"quickstart.hcl", "laptop/lm2lm-top-rated.hcl", "laptop/critic-grpo.hcl", "laptop/code/critic-only.hcl"}

// TestLaptopSpecsRunPriced: with a price on every role (a small model's,
// $0.10 and $0.40 per million tokens in and out), the laptop specs
// finish inside their estimates rather than stop at their dollar cap: the
// built-in offline LLM reports usage within each role's declared bounds,
// so no call costs more than the cap held for it.
func TestLaptopSpecsRunPriced(t *testing.T) {
	for _, name := range pricedSpecs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(specsDir(t), name)
			if filepath.Dir(name) == "." {
				path = writeVariant(t, path)
			}
			s, _, ds := load.Load(path, load.Options{Overlay: laptopOverlay(t)})
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			for _, r := range s.Roles {
				r.Price = &spec.TokenPrice{In: spec.Of(0.1, r.NameRange), Out: spec.Of(0.4, r.NameRange), Range: r.NameRange}
			}
			p, ds := compiler.Compile(s, compiler.Options{CheckRepository: gitrepo.Check, CheckImport: func(dir string, ex []string, over string) error {
				return gitrepo.CheckImport(gitrepo.ImportSource{Dir: dir, Exclude: ex, Overlay: over})
			}})
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			res, _ := checkRun(t, p, 0)
			for name, m := range res.Totals.Measured.Roles {
				t.Logf("%s: %d calls, %.0f in and %.0f out a call", name, m.Calls, float64(m.TokensIn)/float64(max(m.Calls, 1)), float64(m.TokensOut)/float64(max(m.Calls, 1)))
			}
			if res.Totals.LLMUSD <= 0 {
				t.Errorf("the LLM calls cost $%g at non-zero prices", res.Totals.LLMUSD)
			}
		})
	}
}
