package runtime

import (
	"fmt"

	"github.com/assay-lang/assay/compiler/plan"
)

// phaseNode is one plan phase bound to the service and the scope it
// reserves under; execute runs the plan's phases in order, each by its
// node.
type phaseNode interface {
	Execute() error
}

// newPhase makes a phase kind's node for phase idx of the plan.
type newPhase func(s *service, sc scope, idx int, ph *plan.Phase) (phaseNode, error)

// phaseKinds is every phase kind the runtime runs: adding a kind is one
// node type and one row here.
var phaseKinds = map[string]newPhase{
	plan.PhaseBaselines:   newBaselines,
	plan.PhaseSeedRecords: newSeedRecords,
	plan.PhaseRL:          newRLPhase,
	plan.PhaseEvolution:   newEvolution,
	plan.PhaseEvaluation:  newEvaluation,

	plan.PhaseCriticTraining: newCriticTraining,
	plan.PhaseCriticEval:     newCriticEvalPhase,
}

// phaseOf is phase idx's node, or an error for a kind the runtime does not
// know or a phase without the body of its kind.
func phaseOf(s *service, sc scope, idx int, ph *plan.Phase) (phaseNode, error) {
	mk, ok := phaseKinds[ph.Kind]
	if !ok {
		return nil, fmt.Errorf("phase %s: unknown kind %q", ph.Name, ph.Kind)
	}
	if !ph.HasBody() {
		return nil, fmt.Errorf("%w: phase %s of kind %s has %d bodies, and needs the one of its kind", errPermanent, ph.Name, ph.Kind, ph.Bodies())
	}
	return mk(s, sc, idx, ph)
}

// baselines is the plan's baselines phase.
type baselines struct {
	s    *service
	sc   scope
	ph   *plan.Phase
	body *plan.BaselinesBody
}

func newBaselines(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	return &baselines{s: s, sc: sc, ph: ph, body: ph.Baselines}, nil
}

// seedRecords is the plan's seed-records phase.
type seedRecords struct {
	s    *service
	sc   scope
	ph   *plan.Phase
	body *plan.SeedRecordsBody
}

func newSeedRecords(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	return &seedRecords{s: s, sc: sc, ph: ph, body: ph.SeedRecords}, nil
}

// evaluation is the plan's evaluation phase; what Execute sets up is
// shared by its arms, predictions and scoring.
type evaluation struct {
	s  *service
	sc scope
	ph *plan.Phase

	e         *plan.Evaluation // the phase's body
	tasks     []*taskInfo
	k, states int
	items     []*evalItem
	ctx       []record   // the world model's context when it began
	records   [][]record // each arm's in-context records
}

func newEvaluation(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	return &evaluation{s: s, sc: sc, ph: ph, e: ph.Evaluation}, nil
}
