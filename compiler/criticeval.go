package compiler

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// maxCriticEvalList bounds the k and thresholds lists of one critic_eval.
const maxCriticEvalList = 64

// criticEvals checks every critic_eval block of the variant: it names a
// pairs file and the pairs it judges (limit, the count the estimate
// prices), its critics exist, its k and thresholds are in range and its
// calls are not too many. The file itself is read when the spec is
// loaded (diagnostics only) and when the phase starts.
func (k *checker) criticEvals() {
	seen := map[string]bool{}
	for _, ce := range k.s.CriticEvals {
		at := k.at(ce.NameRange, ce.Range)
		if seen[ce.Name] {
			k.add(diag.Errorf(CodeDuplicate, at, "critic_eval %q is declared twice", ce.Name).
				WithDetail("rename one of them; block names of one kind must be unique"))
		}
		seen[ce.Name] = true
		if !k.need(ce.Data.Set, at, fmt.Sprintf("critic_eval %q: data", ce.Name), `data = "pairs.jsonl" (a file assay export pairs wrote)`) {
			continue
		}
		cs := k.evalCritics(ce)
		k.criticEvalLists(ce, cs)
		if !k.need(ce.Limit.Set, at, fmt.Sprintf("critic_eval %q: limit", ce.Name), "limit = N, the pairs of the split judged and priced (e.g. the file's wc -l for split all, or the count assay export pairs reports)") {
			continue
		}
		k.intMin(ce.Limit, 1, fmt.Sprintf("critic_eval %q: limit", ce.Name))
		k.intMin(ce.MinImproving, 0, fmt.Sprintf("critic_eval %q: min_improving_children", ce.Name))
		// In float64: a limit near the int range must not wrap.
		calls := 0.0
		for _, c := range cs {
			calls += float64(ce.Limit.V) * float64(max(c.Votes.V, 0))
		}
		if calls > plan.MaxCriticEvalCalls {
			k.add(diag.Errorf(CodeTooLarge, at, "critic_eval %q makes %.0f critic calls; one evaluation makes at most %d", ce.Name, calls, plan.MaxCriticEvalCalls).
				WithDetail("set limit, fewer critics or fewer votes"))
		}
	}
}

// evalCritics is the critics a critic_eval names (every critic of the
// spec by default), reporting a name that is no critic.
func (k *checker) evalCritics(ce *spec.CriticEval) []*spec.Critic {
	if !ce.Critics.Set {
		if len(k.s.Critics) == 0 {
			k.add(diag.Errorf(CodeMissing, k.at(ce.NameRange, ce.Range), "critic_eval %q: the spec has no critic to evaluate", ce.Name).
				WithDetail(`write a critic block (role, votes, labels), or critics = ["NAME"]`))
		}
		return k.s.Critics
	}
	var out []*spec.Critic
	for _, name := range ce.Critics.V {
		c := k.x.critics[name]
		if c == nil {
			k.add(diag.Errorf(CodeUnknownRef, ce.Critics.Range, "critic_eval %q: no critic %q", ce.Name, name).
				WithDetail("the spec's critics: %s", strings.Join(sortedKeys(k.x.critics), ", ")))
			continue
		}
		out = append(out, c)
	}
	if len(ce.Critics.V) == 0 {
		k.add(diag.Errorf(CodeMissing, ce.Critics.Range, "critic_eval %q: critics is empty", ce.Name).
			WithDetail(`name at least one critic, e.g. critics = ["screen"], or remove critics to evaluate every critic`))
	}
	return out
}

// criticEvalLists checks k (each within every evaluated critic's votes)
// and the thresholds (in [0, 1]).
func (k *checker) criticEvalLists(ce *spec.CriticEval, cs []*spec.Critic) {
	if len(ce.K.V) > maxCriticEvalList || len(ce.Thresholds.V) > maxCriticEvalList {
		k.add(diag.Errorf(CodeTooLarge, k.at(ce.K.Range, ce.Thresholds.Range), "critic_eval %q: k and thresholds list at most %d values each", ce.Name, maxCriticEvalList))
		return
	}
	for _, n := range ce.K.V {
		for _, c := range cs {
			if n < 1 || (c.Votes.Set && n > c.Votes.V) {
				k.add(diag.Errorf(CodeRange, ce.K.Range, "critic_eval %q: k = %d, but critic %q votes %d times", ce.Name, n, c.Name, c.Votes.V).
					WithDetail("give each k from 1 to the votes of every critic evaluated"))
				return
			}
		}
	}
	if ce.K.Set && len(ce.K.V) == 0 {
		k.add(diag.Errorf(CodeRange, ce.K.Range, "critic_eval %q: k is empty", ce.Name).WithDetail("list at least one k, or remove k to score each critic's votes"))
	}
	for _, t := range ce.Thresholds.V {
		if math.IsNaN(t) || t < 0 || t > 1 {
			k.add(diag.Errorf(CodeRange, ce.Thresholds.Range, "critic_eval %q: threshold %g is outside [0, 1]", ce.Name, t).
				WithDetail("a threshold T is a share of votes: 1 - the largest vote share at or above T routes"))
			return
		}
	}
}

func splitOf(ce *spec.CriticEval) string { return ceSplit.of(ce.Split) }

// evaluatedBy reports whether a critic_eval of the spec evaluates critic
// name: that is a use of the critic.
func evaluatedBy(s *spec.Spec, name string) bool {
	for _, ce := range s.CriticEvals {
		if !ce.Critics.Set || slices.Contains(ce.Critics.V, name) {
			return true
		}
	}
	return false
}
