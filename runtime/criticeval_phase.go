package runtime

import (
	"fmt"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime/journal"
)

// criticEvalPhase is a critic_eval phase: each of its critics judges every
// example of its pairs file, read when it starts, through the call path of a run's screen
// (criticVotes, as assay critic-eval), each vote one journaled call held
// against the dollar cap, and the critics' figures are journaled side by
// side (KindCriticEval) for assay report and compare.
type criticEvalPhase struct {
	s  *service
	sc scope
	ph *plan.Phase
}

func newCriticEvalPhase(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	if ph.CriticEval == nil {
		return nil, fmt.Errorf("%w: phase %s has no critic evaluation", errPermanent, ph.Name)
	}
	return &criticEvalPhase{s: s, sc: sc, ph: ph}, nil
}

// claimData journals the digest of the pairs file the phase judges, or,
// on resume, refuses a file that is not the one the run began with: the
// journaled votes are keyed by example index, and would be taken for
// other pairs.
func (r *criticEvalPhase) claimData(digest string) error {
	key := metaCriticEvalData + r.ph.Name
	var was string
	if r.s.j.Meta(key, &was) {
		if was != digest {
			return fmt.Errorf("%w: critic_eval pairs file %s changed since the run began (%s, the journal has %s): restore it, or start a new run",
				errPermanent, r.ph.CriticEval.DataPath(), digest, was)
		}
		return nil
	}
	return r.s.j.SetMeta(key, digest)
}

// metaCriticEvalData prefixes the journal key of a critic_eval phase's
// pairs file digest.
const metaCriticEvalData = "critic_eval_data/"

// Execute asks every critic for its votes, then scores them. Its calls
// are keyed PHASE/CRITIC/I/critic/V, so a resumed run takes the answered
// ones from the journal.
func (r *criticEvalPhase) Execute() error {
	ce := r.ph.CriticEval
	ex, labels, n5, digest, err := readCriticEvalData(ce)
	if err != nil {
		return err
	}
	if err := r.claimData(digest); err != nil {
		return err
	}
	figs := CriticEvalFigures{Phase: r.ph.Name, Data: ce.Data, Split: ce.Split, Examples: len(ex), Ladder5: n5}
	for _, name := range ce.Critics {
		c := findCritic(r.s.v, name)
		if c == nil {
			return fmt.Errorf("%w: the plan has no critic %q (it has %s)", errPermanent, name, criticNames(r.s.v))
		}
		votes, err := criticVotes(r.s, c, ex, r.ph.Name)
		if err != nil {
			return err
		}
		sc, err := ScoreCritic(c, votes, labels, ce.K, ce.Thresholds)
		if err != nil {
			return fmt.Errorf("%w: %v", errPermanent, err)
		}
		figs.Critics = append(figs.Critics, sc)
	}
	return r.s.j.Commit(journal.KindCriticEval, r.ph.Name, figs)
}

// preflightCriticEvals reads every critic_eval phase's and critic
// training's pairs file before the run's first phase, so a missing,
// malformed or short file stops the run before anything is spent, not
// after the phases before it.
// The phase reads it again when it starts, and journals its digest then.
func preflightCriticEvals(v *plan.Variant) error {
	for _, ph := range v.Phases {
		if ph.CriticEval != nil {
			if _, _, _, _, err := readCriticEvalData(ph.CriticEval); err != nil {
				return phaseError(ph, err)
			}
		}
		// A critic training's file too: seed records may come before it.
		if ph.CriticTraining != nil {
			if _, _, err := loadCriticPairs(ph.CriticTraining); err != nil {
				return err
			}
		}
	}
	return nil
}
