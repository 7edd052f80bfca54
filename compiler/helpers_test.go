package compiler

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
)

var update = flag.Bool("update", false, "rewrite golden files")

// compileSource loads HCL source through the front end and compiles it.
func compileSource(t testing.TB, name string, src []byte) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	s, ds := hcl.Load(name, src, hcl.Options{})
	if ds.HasErrors() {
		t.Fatalf("%s does not load:\n%s", name, ds.Format(0))
	}
	p, cds := Compile(s, Options{})
	return p, append(ds, cds...)
}

func readBase(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/base.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mutate replaces the one occurrence of old in src; the test fails when old
// is absent or ambiguous, so a stale case cannot pass silently. It returns
// the new source and the 1-based line where the replacement starts.
func mutate(t *testing.T, src, old, new string) (string, int) {
	t.Helper()
	if n := strings.Count(src, old); n != 1 {
		t.Fatalf("%q occurs %d times in the base spec, want once", old, n)
	}
	i := strings.Index(src, old)
	return src[:i] + new + src[i+len(old):], strings.Count(src[:i], "\n") + 1
}

// screenedLoop is base.hcl's second loop with its reward: it keeps the
// critic in use (a critic no loop screens with is refused). Tests that count
// real runs of the first loop alone remove it.
const screenedLoop = `# A second, small loop whose candidates the critic screens: uncertain ones
# are routed to a real run.
reward "verified" {
  source     = "real"
  value      = "gain > 0 ? 1 : -1"
  infeasible = "-1"
}

loop "screened" {
  preset              = "grpo"
  steps               = 1
  states              = 1
  proposals_per_state = 2
  learning_rate       = 0.5
  reward              = reward.verified
  screen              = critic.screen
}

`

// baseCritic is base.hcl's critic block, removed with screenedLoop when no
// loop is left to screen with it.
const baseCritic = `critic "screen" {
  role            = role.judge
  votes           = 15
  threshold       = 0.25
  expected_routed = 0.363
}
`

// continualOf is the continual critic of v's first evolution phase, nil
// when it has none.
func continualOf(v *plan.Variant) *plan.CriticContinual {
	if ph := v.PhaseOf(plan.PhaseEvolution); ph != nil && ph.Evolution != nil {
		return ph.Evolution.Continual
	}
	return nil
}
