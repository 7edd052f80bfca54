package compiler

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// screenedRuns compiles base.hcl with the screened loop's lines extra and
// returns its phase's real runs and its plan loop.
func screenedRuns(t *testing.T, extra string) (plan.Count, *plan.Loop) {
	t.Helper()
	src, _ := mutate(t, readBase(t), "  screen              = critic.screen\n", "  screen              = critic.screen\n"+extra)
	p, ds := compileSource(t, "base.hcl", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	v := p.Variants[0]
	for _, ph := range v.Phases {
		if ph.Loop() == "screened" && ph.Kind == plan.PhaseRL {
			for _, l := range v.Loops {
				if l.Name == "screened" {
					var c plan.Count
					for _, x := range ph.Calls.RealRuns {
						c.Low, c.Expected, c.High = c.Low+x.Low, c.Expected+x.Expected, c.High+x.High
					}
					return c, l
				}
			}
		}
	}
	t.Fatal("no phase of loop screened")
	return plan.Count{}, nil
}

// TestAuditShareCounts: base.hcl's screened loop judges 2 candidates and
// routes 0.363 of them (high 1). An audit share of 0.5 verifies half of
// the rest: expected 2 x (0.363 + 0.637 x 0.5) = 1.363 real runs, high 2
// (all routed, none left), low 2 x 0.363 = 0.726 (a batch may audit none).
func TestAuditShareCounts(t *testing.T) {
	c, l := screenedRuns(t, "")
	if !nearF(c.Low, 0.726) || !nearF(c.Expected, 0.726) || !nearF(c.High, 2) || l.AuditShare != 0 {
		t.Fatalf("no audit: real runs %+v", c)
	}
	c, l = screenedRuns(t, "  audit_share         = 0.5\n")
	if !nearF(c.Low, 0.726) || !nearF(c.Expected, 1.363) || !nearF(c.High, 2) || l.AuditShare != 0.5 {
		t.Errorf("audit 0.5: real runs %+v, loop audit %g; want 0.726, 1.363, 2 and 0.5", c, l.AuditShare)
	}
	for _, bad := range []struct{ extra, code, says string }{
		{"  audit_share         = 1.5\n", CodeRange, "in [0, 1]"},
	} {
		src, _ := mutate(t, readBase(t), "  screen              = critic.screen\n", "  screen              = critic.screen\n"+bad.extra)
		_, ds := compileSource(t, "base.hcl", []byte(src))
		if out := ds.Format(0); !strings.Contains(out, bad.code) || !strings.Contains(out, bad.says) {
			t.Errorf("%q: want %s %q, got:\n%s", bad.extra, bad.code, bad.says, out)
		}
	}
	// The policy loop has no screen: nothing to audit.
	src, _ := mutate(t, readBase(t), "  reward              = reward.rwm_gain\n", "  reward              = reward.rwm_gain\n  audit_share         = 0.2\n")
	_, ds := compileSource(t, "base.hcl", []byte(src))
	if out := ds.Format(0); !strings.Contains(out, CodeNotApplicable) || !strings.Contains(out, "no screen of it routes") {
		t.Errorf("audit_share on a loop without a routing screen: %s", out)
	}
}

func nearF(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
