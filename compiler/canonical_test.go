package compiler

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// Declaring the same plugins, environments, tasks, roles, rewards and
// critics in another order gives the same plan, hash included.
func TestPlanIndependentOfDeclarationOrder(t *testing.T) {
	for _, name := range []string{"testdata/base.hcl", "../specs/lm2lm.hcl", "../specs/critic-grpo.hcl", "../specs/critic-sweep.hcl"} {
		t.Run(name, func(t *testing.T) {
			compile := func(permute bool) string {
				s, ds := loadForTest(t, name)
				if ds != "" {
					t.Fatal(ds)
				}
				if permute {
					slices.Reverse(s.Plugins)
					slices.Reverse(s.Environments)
					slices.Reverse(s.Roles)
					slices.Reverse(s.Rewards)
					slices.Reverse(s.Critics)
					for _, e := range s.Environments {
						slices.Reverse(e.TaskList)
					}
				}
				p, cds := Compile(s, Options{})
				if p == nil {
					t.Fatal(cds.Format(0))
				}
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			if a, b := compile(false), compile(true); a != b {
				t.Fatalf("the permuted spec compiles to another plan:\n%s\n%s", a, b)
			}
		})
	}
}

// loadForTest loads an HCL spec, following extends through lang/load's rule
// of merging the child over its base.
func loadForTest(t *testing.T, path string) (*spec.Spec, string) {
	t.Helper()
	// Through lang/load: its extends chain merged, its suite's tasks listed.
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		return nil, ds.Format(0)
	}
	return s, ""
}
