package compiler

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
)

// TestCompilePartialBudget: a spec whose fixed runs exceed its budget is
// refused, but CompilePartial still shows the phases it compiled to, with
// Compile's diagnostics and no hash.
func TestCompilePartialBudget(t *testing.T) {
	src, _ := mutate(t, readBase(t), "real_runs = 40", "real_runs = 3")
	s, lds := hcl.Load("base.hcl", []byte(src), hcl.Options{})
	if lds.HasErrors() {
		t.Fatalf("does not load:\n%s", lds.Format(0))
	}
	full, fds := Compile(s, Options{})
	if full != nil || !hasCode(fds, CodeBudgetFit) {
		t.Fatalf("Compile: plan %v, diagnostics\n%s\nwant no plan and %s", full != nil, fds.Format(0), CodeBudgetFit)
	}
	p, ds := CompilePartial(s, Options{})
	if !reflect.DeepEqual(ds, fds) {
		t.Errorf("CompilePartial's diagnostics differ from Compile's:\n%s\nwant\n%s", ds.Format(0), fds.Format(0))
	}
	if p == nil {
		t.Fatal("CompilePartial returned no plan for a spec whose only error is its budget")
	}
	if p.Hash != "" {
		t.Errorf("a partial plan has hash %s; it must not look runnable", p.Hash)
	}
	kinds := map[string]bool{}
	for _, ph := range p.Variants[0].Phases {
		kinds[ph.Kind] = true
	}
	for _, k := range []string{plan.PhaseSeedRecords, plan.PhaseRL, plan.PhaseEvaluation} {
		if !kinds[k] {
			t.Errorf("the partial plan has no %s phase; phases: %v", k, kinds)
		}
	}
}

// TestCompilePartialAgrees: on every valid and invalid spec of testdata,
// CompilePartial reports exactly Compile's diagnostics; it returns a plan
// exactly when Compile does or every error leaves the spec sound, and on a
// valid spec the same plan.
func TestCompilePartialAgrees(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.hcl")
	files = append(files, "testdata/base.hcl")
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, lds := hcl.Load(file, src, hcl.Options{})
			if lds.HasErrors() {
				t.Fatalf("does not load:\n%s", lds.Format(0))
			}
			full, fds := Compile(s, Options{})
			p, ds := CompilePartial(s, Options{})
			if !reflect.DeepEqual(ds, fds) {
				t.Errorf("diagnostics differ:\n%s\nwant\n%s", ds.Format(0), fds.Format(0))
			}
			switch {
			case full != nil:
				if p == nil || p.Hash != full.Hash {
					t.Errorf("a valid spec's partial plan differs from its plan")
				}
			case allSound(fds) && p == nil:
				t.Errorf("no partial plan, though every error leaves the spec sound:\n%s", fds.Format(0))
			case !allSound(fds) && p != nil && !hasCode(fds, CodeUntilBudget): // lowering's own error keeps its plan
				t.Errorf("a partial plan, though an error leaves the spec unsound:\n%s", fds.Format(0))
			}
		})
	}
}

func allSound(ds diag.Diagnostics) bool {
	for _, d := range ds {
		if d.Severity == diag.Error && !soundErrors[d.Code] {
			return false
		}
	}
	return true
}
