package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// Role kinds by what a block calls them for. A builder may be declared with
// kind "builder" or "implementer"; both build a proposal into a runnable one.
var (
	proposerKinds   = []string{"proposer"}
	builderKinds    = []string{"builder", "implementer"}
	summarizerKinds = []string{"summarizer"}
	predictorKinds  = []string{"rwm"}
)

// bind decides, once, which role every loop, the seed records and the
// evaluation call for each job, and which critic judges a loop's
// candidates. It fills the references in the spec, so the lowering and
// every variant see the same bindings, and the plan carries them: the
// runtime never looks a role up by its kind.
//
// A reference left out is filled when exactly one role of the kind exists;
// with several, the block must name one. A role named where the block never
// calls it is refused.
func bind(c *compilation) {
	s, x := c.spec, c.idx
	if x == nil {
		return
	}
	for _, l := range s.Loops {
		judged := l.Screen.Set
		if rw := x.rewards[l.Reward.Name]; l.Kind.V == "rl" && rw != nil && rw.Source.V == "critic" {
			judged = true
			bindLabeller(c, l, rw)
		}
		what := fmt.Sprintf("loop %q", l.Name)
		at := firstValid(l.NameRange, l.Range)
		bindRole(c, &l.Proposer, "proposer", proposerKinds, what, at, true, true)
		bindRole(c, &l.Builder, "builder", builderKinds, what, at, false, true)
		bindRole(c, &l.Summarizer, "summarizer", summarizerKinds, what, at, false, judged)
		if l.Kind.V == "rl" {
			// A named predictor is checked by resolve and the domain pass,
			// for every reward; bind only fills one left out.
			if rw := x.rewards[l.Reward.Name]; rw != nil && rw.Source.V == "predicted" && !rw.Predictor.Set {
				bindRole(c, &rw.Predictor, "predictor", predictorKinds, fmt.Sprintf("reward %q", rw.Name), firstValid(rw.NameRange, rw.Range), true, true)
			}
		}
	}
	warnFixedPolicies(c)
	if r := s.Records; r != nil {
		bindRole(c, &r.Proposer, "proposer", proposerKinds, "records", r.Range, true, true)
		bindRole(c, &r.Builder, "builder", builderKinds, "records", r.Range, false, true)
	}
	if ev := s.Evaluation; ev != nil {
		bindRole(c, &ev.Proposer, "proposer", proposerKinds, "evaluation", ev.Range, true, true)
		bindRole(c, &ev.Builder, "builder", builderKinds, "evaluation", ev.Range, false, true)
		// The further arms and the world model are named or absent: an
		// evaluation without them is the papers' plain Avg@k.
		if ev.Base.Set {
			bindRole(c, &ev.Base, "base", proposerKinds, "evaluation", ev.Range, false, true)
		}
		if ev.ICL.Set {
			bindRole(c, &ev.ICL, "icl", proposerKinds, "evaluation", ev.Range, false, true)
		}
		if ev.Predictor.Set {
			bindRole(c, &ev.Predictor, "predictor", predictorKinds, "evaluation", ev.Range, false, true)
		}
		untrainedArms(c, ev)
	}
}

// untrainedArms refuses a base or icl arm whose role some RL loop trains,
// unless it is the evaluated proposer itself: an arm runs its role's
// untrained policy, and naming another trained role would suggest it runs
// that role's trained one. The evaluated proposer is allowed: the papers'
// Base is the same model before training.
func untrainedArms(c *compilation, ev *spec.Evaluation) {
	for _, arm := range []*spec.Ref{&ev.Base, &ev.ICL} {
		if !arm.Set || arm.Name == ev.Proposer.Name {
			continue
		}
		for _, l := range c.spec.Loops {
			if l.Kind.V == "rl" && l.Proposer.Name == arm.Name {
				c.add(diag.Errorf(CodeConflict, arm.Range, "evaluation arm %s is trained by loop %q; an arm runs its role's untrained policy", arm.String(), l.Name).
					WithDetail("name the evaluated proposer (proposer = role.%s) or a role no loop trains", arm.Name))
			}
		}
	}
}

// warnFixedPolicies warns about an RL loop whose proposer is served by a
// built-in that cannot update a policy, and that has no update block to
// train it: the run samples a fixed policy, so the loop's updates do
// nothing, and validate says so before the run does.
func warnFixedPolicies(c *compilation) {
	for _, l := range c.spec.Loops {
		if l.Kind.V != "rl" || !l.Proposer.Set || l.Update != nil {
			continue
		}
		role := c.idx.roles[l.Proposer.Name]
		if role == nil || !role.LLM.Set {
			continue
		}
		p := c.idx.plugins[role.LLM.Name]
		if p == nil {
			continue
		}
		if sch, ok := pluginconfig.Lookup(p.Source.V); ok && sch.Kind == "llm" && !sch.TrainsPolicy {
			c.add(diag.Warnf(CodePolicyFixed, firstValid(l.NameRange, l.Range), "loop %q trains proposer %q, whose plugin %s cannot update a policy: the run samples a fixed policy and makes no policy update", l.Name, role.Name, p.Source.V).
				WithDetail("add an update block to the loop, which trains the policy with your RL command after each step and serves the adapter it writes (docs/policy-training.md); or serve the proposer with a plugin that trains (builtin:offline does)"))
		}
	}
}

// bindLabeller settles which critic labels a critic-sourced reward: its
// predictor, or else the loop's screen. Naming two different critics is
// refused: one critic judges a candidate, once.
func bindLabeller(c *compilation, l *spec.Loop, rw *spec.Reward) {
	switch {
	case rw.Predictor.Set && l.Screen.Set && rw.Predictor.Name != l.Screen.Name:
		c.add(diag.Errorf(CodeConflict, rw.Predictor.Range, "reward %q is labelled by critic %q, but loop %q screens with critic %q", rw.Name, rw.Predictor.Name, l.Name, l.Screen.Name).
			WithDetail("one critic judges a candidate: point predictor and screen at the same critic, or remove predictor"))
	case !rw.Predictor.Set && !l.Screen.Set:
		var critics []string
		for _, cr := range c.spec.Critics {
			critics = append(critics, cr.Name)
		}
		d := diag.Errorf(CodeMissing, firstValid(rw.NameRange, rw.Range), "reward %q takes its gain from a critic's label, but names no critic, and loop %q screens with none", rw.Name, l.Name)
		if len(critics) > 0 {
			d.WithDetail("write predictor = critic.%s in the reward (critic-only), or screen = critic.%s in the loop (critic with routing)", critics[0], critics[0])
		} else {
			d.WithDetail("declare a critic block and write predictor = critic.NAME in the reward")
		}
		c.add(d)
	}
}

// bindRole fills or checks one role reference. need: the block must have
// such a role; applies: the block calls a role of this kind at all.
func bindRole(c *compilation, r *spec.Ref, field string, kinds []string, what string, at diag.Range, need, applies bool) {
	s, x := c.spec, c.idx
	if r.Set {
		if r.Kind != "role" {
			c.add(diag.Errorf(CodeRefKind, r.Range, "%s must refer to a role, not %s", field, r.String()).
				WithDetail("write %s = role.NAME", field))
			return
		}
		role := x.roles[r.Name]
		if role == nil {
			d := diag.Errorf(CodeUnknownRef, r.Range, "%s refers to %s, which is not declared", field, r.String())
			if hint := diag.DidYouMean(r.Name, kindNames(s, kinds)); hint != "" {
				d.WithDetail("%s", hint)
			}
			c.add(d)
			return
		}
		if !applies {
			c.add(diag.Errorf(CodeNotApplicable, r.Range, "%s of %s is never called: %s judges no candidate with a critic", field, what, what).
				WithDetail("remove %s, or screen the loop with a critic", field))
			return
		}
		if role.Kind.Set && !slices.Contains(kinds, role.Kind.V) {
			c.add(diag.Errorf(CodeRefKind, r.Range, "%s of %s must be a role of kind %s; role %q is a %s", field, what, strings.Join(kinds, " or "), role.Name, role.Kind.V).
				WithDetail("point %s at a role with kind = %q", field, kinds[0]))
		}
		return
	}
	if !applies {
		return
	}
	names := kindNames(s, kinds)
	if field == "summarizer" {
		// A summarizer a critic asks for task criteria (criteria_role)
		// describes tasks, not candidates: it is a loop's only when named.
		names = slices.DeleteFunc(names, func(n string) bool { return criteriaRoleNames(s)[n] })
	}
	switch {
	case len(names) == 1:
		*r = spec.Ref{Kind: "role", Name: names[0], Set: true, Range: at}
	case len(names) > 1:
		c.add(diag.Errorf(CodeRoleAmbiguous, at, "%s calls a %s, and the spec declares %d: %s", what, kinds[0], len(names), strings.Join(names, ", ")).
			WithDetail("name the one it uses: %s = role.%s", field, names[0]))
	case need:
		c.add(diag.Errorf(CodeMissing, at, "%s needs a %s role, and the spec declares none", what, kinds[0]).
			WithDetail("declare role %q { kind = %q ... } (or name one with %s = role.NAME)", kinds[0], kinds[0], field))
	}
}

// kindNames lists the roles of the given kinds (every role when kinds is
// nil), in declaration order.
func kindNames(s *spec.Spec, kinds []string) []string {
	var out []string
	for _, r := range s.Roles {
		if kinds == nil || slices.Contains(kinds, r.Kind.V) {
			out = append(out, r.Name)
		}
	}
	return out
}

func firstValid(rs ...diag.Range) diag.Range {
	for _, r := range rs {
		if r.Valid() {
			return r
		}
	}
	return diag.Range{}
}
