package compiler

import (
	"fmt"
	"math"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// MaxBatch bounds the products of counts that the runtime holds in memory
// at once: the candidates of one rollout (states x proposals_per_state,
// times the critic's votes when a critic screens them), the ideas of one
// evolution round over all islands (islands x ideas_per_round, times the
// votes), the runs of an evaluation (arms x tasks x states x
// max(avg_at, best_at)) and the seed records. Each is listed before any is
// made, so a product past this limit is memory no run has. The papers'
// largest (a critic sweep up to k = 32 over a few hundred candidates) is a
// small fraction of it.
const MaxBatch = 100_000

// MaxWork bounds what one loop or critic training does over its whole
// run: an RL loop's candidates (steps x states x proposals_per_state), an
// evolution loop's ideas (rounds x islands x ideas_per_round), a critic
// GRPO's verdicts (steps x pairs_per_step x group). Each is at least one
// LLM call and a journal record, and a cheap model's calls cost nothing
// against a dollar cap, so past this a run would never end: steps = 1e9
// asks for billions of calls. The shipped specs' largest loop (lm2lm's 96
// steps of 256 x 8) makes about 200,000.
const MaxWork = 10_000_000

// factor is one count of a product and the field that states it.
type factor struct {
	name string
	v    spec.Val[int]
}

// batchLimits refuses a variant whose runtime batches pass MaxBatch; true
// when one does. It runs after countLimits, so every factor is at most
// MaxCount and the products, in floating point, are exact enough.
func (k *checker) batchLimits() bool {
	bad := false
	check := func(what, unit string, at diag.Range, fs ...factor) {
		if k.product(what, unit, at, fs...) {
			bad = true
		}
	}
	for _, l := range k.s.Loops {
		votes := k.screenVotes(l)
		at := k.at(l.NameRange, l.Range)
		what := fmt.Sprintf("loop %q", l.Name)
		switch l.Kind.V {
		case "rl":
			check(what, "candidates per rollout", at, append([]factor{{"states", l.StatesPerStep}, {"proposals_per_state", l.ProposalsPerState}}, votes...)...)
		case "evolution":
			check(what, "ideas per round over all islands", at, append([]factor{{"islands", l.Islands}, {"ideas_per_round", l.Ideas}}, votes...)...)
		}
	}
	// A loop's whole run is checked once what it holds at once is in
	// bounds: its per-rollout product is a factor of it.
	if !bad && k.workLimits() {
		bad = true
	}
	if ev := k.s.Evaluation; ev != nil {
		arms := 1
		if ev.Base.Set {
			arms++
		}
		if ev.ICL.Set {
			arms++
		}
		split := ev.Split.V
		if split == "" {
			split = "holdout"
		}
		kk := factor{"avg_at", ev.AvgAt}
		if ev.BestAt.V > ev.AvgAt.V {
			kk = factor{"best_at", ev.BestAt}
		}
		tasks := spec.Val[int]{V: splitTasks(k.s, split), Set: true}
		states := ev.States
		if states.V < 1 {
			states.V = 1
		}
		check("evaluation", "real runs", k.at(ev.Range),
			factor{"arms", spec.Val[int]{V: arms}}, factor{split + " tasks", tasks}, factor{"states", states}, kk)
	}
	if r := k.s.Records; r != nil {
		check("records", "seed runs", k.at(r.Range), factor{"seed_runs", r.SeedRuns})
	}
	return bad
}

// workLimits refuses a loop or critic training that does more than
// MaxWork over its run; true when one does. A loop that spends the budget
// (until_budget) counts its max_steps; without them its steps are the
// budget's, and validate warns that they have no bound (E_UNBOUNDED).
func (k *checker) workLimits() bool {
	bad := false
	check := func(what, unit string, at diag.Range, fs ...factor) {
		if k.productOver(MaxWork, what, unit, at, "Every one is at least one LLM call and a journal record: a run this long would not end, whatever a cheap model costs. Lower "+factorNames(fs)+"; the shipped specs' largest loop makes about 200,000.", fs...) {
			bad = true
		}
	}
	for _, l := range k.s.Loops {
		at := k.at(l.NameRange, l.Range)
		what := fmt.Sprintf("loop %q", l.Name)
		switch l.Kind.V {
		case "rl":
			steps := factor{"steps", l.Steps}
			if l.UntilBudget.V {
				if !l.MaxSteps.Set {
					continue
				}
				steps = factor{"max_steps", l.MaxSteps}
			}
			check(what, "proposals over its steps", at, steps, factor{"states", l.StatesPerStep}, factor{"proposals_per_state", l.ProposalsPerState})
		case "evolution":
			ideas := factor{"ideas_per_round", l.Ideas}
			if !l.Ideas.Set {
				ideas = factor{"verifications_per_round", l.Verifications}
			}
			check(what, "ideas over its rounds", at, factor{"rounds", l.Rounds}, factor{"islands", l.Islands}, ideas)
		}
	}
	for _, ct := range k.s.CriticTrainings {
		if g := ct.GRPO; g != nil {
			check(fmt.Sprintf("critic_training %q", ct.Name), "verdicts over its GRPO steps", k.at(g.Range, ct.NameRange),
				factor{"steps", g.Steps}, factor{"pairs_per_step", g.Batch}, factor{"group", g.Group})
		}
	}
	return bad
}

// screenVotes is the votes factor of a loop whose critic screens its
// candidates: each candidate holds its votes until its group is scored.
func (k *checker) screenVotes(l *spec.Loop) []factor {
	if !l.Screen.Set {
		return nil
	}
	for _, cr := range k.s.Critics {
		if cr.Name == l.Screen.Name {
			return []factor{{fmt.Sprintf("critic %q votes", cr.Name), cr.Votes}}
		}
	}
	return nil
}

// product reports a product of counts past MaxBatch at the largest factor
// the spec states (else at), naming every factor; true when it did.
func (k *checker) product(what, unit string, at diag.Range, fs ...factor) bool {
	return k.productOver(MaxBatch, what, unit, at, fmt.Sprintf("The runtime holds them all at once. Lower %s; a realistic batch is a few thousand.", factorNames(fs)), fs...)
}

// productOver is product against limit, with detail saying why it holds.
func (k *checker) productOver(limit int, what, unit string, at diag.Range, detail string, fs ...factor) bool {
	n := 1.0
	var big *factor
	parts := make([]string, 0, len(fs))
	for i := range fs {
		f := &fs[i]
		n *= math.Max(float64(f.v.V), 1)
		parts = append(parts, fmt.Sprintf("%s %d", f.name, max(f.v.V, 1)))
		if f.v.Range.Valid() && (big == nil || f.v.V > big.v.V) {
			big = f
		}
	}
	if n <= float64(limit) {
		return false
	}
	if big != nil {
		at = big.v.Range
	}
	k.add(diag.Errorf(CodeTooLarge, at, "%s makes %.0f %s (%s); the limit is %d", what, n, unit, strings.Join(parts, " x "), limit).
		WithDetail("%s", detail))
	return true
}

// names lists the factors a user can lower, in the spec's words.
func factorNames(fs []factor) string {
	var out []string
	for _, f := range fs {
		if f.v.Range.Valid() {
			out = append(out, f.name)
		}
	}
	if len(out) == 0 {
		for _, f := range fs {
			out = append(out, f.name)
		}
	}
	return strings.Join(out, " or ")
}

// splitTasks counts a spec's tasks of one split without listing them.
func splitTasks(s *spec.Spec, split string) int {
	n := 0
	for _, e := range s.Environments {
		if len(e.TaskList) > 0 {
			for _, t := range e.TaskList {
				if t.Split.V == split {
					n++
				}
			}
			continue
		}
		if e.Tasks == nil {
			continue
		}
		if split == "train" {
			n += max(e.Tasks.Train.V, 0)
		} else {
			n += max(e.Tasks.Holdout.V, 0)
		}
	}
	return n
}
