package contract

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/runtime"
)

// A tight dollar cap shrinks the loop, never the evaluation after it: the
// quickstart with a priced proposer (whose calls hold up to 2,000 tokens
// in, $0.0225, though they are billed nearer 300) under a $1.20 cap,
// which its expected $1.17 fits and its high $4.77 does not. Before the
// loop starts, the evaluation's 4 proposer calls at their high figures
// and its real runs are held back ($0.09), so the loop stops at the cap
// and the evaluation makes every real run it proposes. (Holding back the
// evaluation's low figures, $0.01, the loop spent it, and the evaluation
// made 0 of its 4 real runs.)
func TestLaterPhaseFundedUnderATightCap(t *testing.T) {
	t.Parallel()
	path := writeVariant(t, filepath.Join(specsDir(t), "quickstart.hcl"),
		[2]string{"  tokens {\n    in  = 500\n    out = 100\n  }\n  price {\n    in  = 0\n    out = 0\n  }",
			"  tokens {\n    in  = { low = 100, expected = 300, high = 2000 }\n    out = 100\n  }\n  price {\n    in  = 10\n    out = 25\n  }"},
		[2]string{"usd       = 1\n", "usd       = 1.20\n"})
	p, ds := compile(t, path)
	if ds.HasErrors() {
		t.Fatalf("does not compile: %v", ds)
	}
	v := p.Variants[0]
	var loopHold float64
	for _, ph := range v.Phases {
		if ph.Name == "rl.policy" {
			loopHold = ph.HoldBack.USD
		}
	}
	if loopHold < 0.09 {
		t.Errorf("the loop holds back $%g for the evaluation, less than its 4 proposer calls at their high figures", loopHold)
	}
	res, err := runtime.Run(context.Background(), p, runtime.Options{ID: "c", Dir: t.TempDir(), Plugins: loader()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Totals.Measured
	eval := 0
	if e := m.Phases["evaluation"]; e != nil {
		eval = e.RealRuns
	}
	t.Logf("state %s, $%g of $%g spent; the loop held back $%g; evaluation %d real runs, loop %d steps; cuts %+v",
		res.State, res.Totals.USD, v.Budget.USD, loopHold, eval, m.Loops["policy"].Steps, res.Cuts)
	if res.Totals.USD > v.Budget.USD+1e-9 {
		t.Errorf("spent $%g past the cap", res.Totals.USD)
	}
	for _, c := range res.Cuts {
		if c.Phase != "rl.policy" {
			t.Errorf("phase %s was cut: %s", c.Phase, c.Reason)
		}
	}
	// 2 holdout tasks x Avg@2: 4 proposals, each run when it builds.
	if eval < 2 {
		t.Errorf("the evaluation made %d real runs", eval)
	}
	if res.State != runtime.StateStoppedAtCap || len(res.Cuts) != 1 || !strings.Contains(res.Cuts[0].Reason, "held back for later phases") {
		t.Errorf("state %s, cuts %+v; want the loop stopped at the cap, short of what it holds back", res.State, res.Cuts)
	}
}
