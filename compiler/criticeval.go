package compiler

import (
	"fmt"
	"math"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// defaultCriticEvalThresholds are the routing thresholds a critic_eval
// reports when it names none.
var defaultCriticEvalThresholds = []float64{0.1, 0.25, 0.5}

// maxCriticEvalList bounds the k and thresholds lists of one critic_eval.
const maxCriticEvalList = 64

// criticEvals checks every critic_eval block of the variant: its pairs
// file was read, its critics exist, its k and thresholds are in range and
// its pairs and calls are neither none nor too many.
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
		if !ce.DataRead {
			k.add(diag.Errorf(CodeMissing, ce.Data.Range, "critic_eval %q: pairs file %s was not read", ce.Name, ce.Data.V).
				WithDetail("A critic_eval's pairs file is read when the spec is loaded from disk (lang/load); load the spec with its files."))
			continue
		}
		cs := k.evalCritics(ce)
		k.intMin(ce.Limit, 0, fmt.Sprintf("critic_eval %q: limit", ce.Name))
		k.criticEvalLists(ce, cs)
		n := criticEvalExamples(ce)
		if n == 0 {
			k.add(diag.Errorf(CodeRange, k.at(ce.Split.Range, ce.Data.Range), "critic_eval %q: %s has no pairs of split %s", ce.Name, ce.Data.V, splitOf(ce)).
				WithDetail("choose a split the file has (split = \"all\" judges every pair), or export pairs with that split"))
			continue
		}
		calls := 0
		for _, c := range cs {
			calls += n * max(c.Votes.V, 0)
		}
		if calls > plan.MaxCriticEvalCalls {
			k.add(diag.Errorf(CodeTooLarge, at, "critic_eval %q makes %d critic calls; one evaluation makes at most %d", ce.Name, calls, plan.MaxCriticEvalCalls).
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

func splitOf(ce *spec.CriticEval) string {
	if ce.Split.Set {
		return ce.Split.V
	}
	return "all"
}

// criticEvalExamples is how many pairs a critic_eval judges: those of its
// split, at most limit.
func criticEvalExamples(ce *spec.CriticEval) int {
	n := 0
	for split, c := range ce.DataSplits {
		if splitOf(ce) == "all" || split == splitOf(ce) {
			n += c
		}
	}
	if ce.Limit.V > 0 {
		n = min(n, ce.Limit.V)
	}
	return n
}

// evaluatedBy reports whether a critic_eval of the spec evaluates critic
// name: that is a use of the critic.
func evaluatedBy(s *spec.Spec, name string) bool {
	for _, ce := range s.CriticEvals {
		if !ce.Critics.Set {
			return true
		}
		for _, n := range ce.Critics.V {
			if n == name {
				return true
			}
		}
	}
	return false
}
