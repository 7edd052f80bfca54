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
	plan.PhaseCalibration: newNested,
	plan.PhaseEvolution:   newEvolution,
	plan.PhaseEvaluation:  newEvaluation,

	plan.PhaseCriticTraining: newCriticTraining,
	plan.PhaseCriticEval:     newCriticEvalPhase,
}

// phaseOf is phase idx's node, or an error for a kind the runtime does not
// know.
func phaseOf(s *service, sc scope, idx int, ph *plan.Phase) (phaseNode, error) {
	mk, ok := phaseKinds[ph.Kind]
	if !ok {
		return nil, fmt.Errorf("phase %s: unknown kind %q", ph.Name, ph.Kind)
	}
	return mk(s, sc, idx, ph)
}

// nested is a phase another phase runs (a calibration round, run by its
// RL phase between its steps): on its own it does nothing.
type nested struct{}

func newNested(*service, scope, int, *plan.Phase) (phaseNode, error) { return nested{}, nil }

func (nested) Execute() error { return nil }

// baselines is the plan's baselines phase.
type baselines struct {
	s  *service
	sc scope
	ph *plan.Phase
}

func newBaselines(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	return &baselines{s: s, sc: sc, ph: ph}, nil
}

// seedRecords is the plan's seed-records phase.
type seedRecords struct {
	s  *service
	sc scope
	ph *plan.Phase
}

func newSeedRecords(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	return &seedRecords{s: s, sc: sc, ph: ph}, nil
}

// evaluation is the plan's evaluation phase; what Execute sets up is
// shared by its arms, predictions and scoring.
type evaluation struct {
	s  *service
	sc scope
	ph *plan.Phase

	e         *plan.Evaluation
	tasks     []*taskInfo
	k, states int
	items     []*evalItem
	ctx       []record   // the world model's context when it began
	records   [][]record // each arm's in-context records
}

func newEvaluation(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	return &evaluation{s: s, sc: sc, ph: ph}, nil
}
