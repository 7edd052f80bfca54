package compiler

import (
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// auditable reports whether loop l's screen decides real runs by routing, so
// that some of its unrouted candidates can be audited: an RL loop whose
// screen routes and whose reward is not predicted (settleRL counts its
// real runs the same way).
func auditable(x *index, l *spec.Loop) bool {
	if l.Kind.V != "rl" || !l.Screen.Set {
		return false
	}
	rw := x.rewards[l.Reward.Name]
	return rw != nil && rw.Source.V != "predicted" && critRoutes(x.critics[l.Screen.Name])
}

// screenRuns is the share of an RL loop's screened candidates that get a
// real run, per scenario: those its screen routes (expected_routed) and,
// with audit_share a, a of the rest, at the expected and high levels of
// the routed share. The runtime audits the floor of a times each batch's
// unrouted candidates, never more than a of them, so the high figure
// bounds it; the low level counts no audit (a small batch may audit
// none).
func (lv *lowering) screenRuns(l *spec.Loop) vec {
	v := lv.routed(lv.x.critics[l.Screen.Name])
	if !l.AuditShare.Set || !auditable(lv.x, l) {
		return v
	}
	a := l.AuditShare.V
	for sc := range v {
		if sc/3 > 0 {
			v[sc] += (1 - v[sc]) * a
		}
	}
	return v
}

// auditShare checks an RL loop's audit_share: a share, on a loop whose
// screen routes.
func (k *checker) auditShare(l *spec.Loop) {
	a := l.AuditShare
	if !a.Set {
		return
	}
	if a.V < 0 || a.V > 1 {
		k.add(diag.Errorf(CodeRange, a.Range, "audit_share is a share of unrouted candidates, in [0, 1]; got %g", a.V))
		return
	}
	lv := &lowering{s: k.s, x: k.x}
	if !auditable(lv.x, l) {
		k.add(diag.Errorf(CodeNotApplicable, a.Range, "loop %q sets audit_share, but no screen of it routes candidates to real runs", l.Name).
			WithDetail("audit_share verifies some of the candidates a routing screen leaves to the critic; set screen = critic.NAME with a route (or a tie rule that routes) and a real or critic reward, or remove audit_share"))
	}
}
