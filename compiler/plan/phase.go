package plan

import "github.com/assay-lang/assay/lang/diag"

// Phase kinds, in the order they run.
const (
	// PhaseBaselines measures the baseline metric b_e of every task that
	// needs one and has none declared: one real run of the unedited
	// reference configuration per task, listed in its body's Tasks.
	PhaseBaselines   = "baselines"
	PhaseSeedRecords = "seed_records"
	PhaseRL          = "rl"
	PhaseEvolution   = "evolution"
	PhaseEvaluation  = "evaluation"
)

// Phase is one stage of execution: its name and kind, the count of every
// plugin call it will make, what it holds back for the phases after it,
// and one body, the one of its kind, which is everything the phase runs:
// the runtime's phase reads its body and nothing else of the plan but the
// blocks it names (roles, critics, rewards, loops).
type Phase struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Calls Calls  `json:"calls"`
	// HoldBack is what the phase leaves unspent under each cap for the
	// phases after it (see HoldBack).
	HoldBack *HoldBack  `json:"hold_back,omitempty"`
	Source   diag.Range `json:"source"`

	// The body: exactly one is set, the one of Kind (Body says which).
	Baselines      *BaselinesBody   `json:"baselines,omitempty"`
	SeedRecords    *SeedRecordsBody `json:"seed_records,omitempty"`
	CriticTraining *CriticTraining  `json:"critic_training,omitempty"`
	CriticEval     *CriticEval      `json:"critic_eval,omitempty"`
	RL             *RLBody          `json:"rl,omitempty"`
	Evolution      *EvolutionBody   `json:"evolution,omitempty"`
	Evaluation     *Evaluation      `json:"evaluation,omitempty"`
}

// Bodies is the number of bodies set on ph: a valid phase has one, of its
// kind (HasBody).
func (ph *Phase) Bodies() int {
	n := 0
	for _, set := range []bool{ph.Baselines != nil, ph.SeedRecords != nil, ph.CriticTraining != nil, ph.CriticEval != nil,
		ph.RL != nil, ph.Evolution != nil, ph.Evaluation != nil} {
		if set {
			n++
		}
	}
	return n
}

// HasBody reports whether ph carries the body of its kind and no other.
func (ph *Phase) HasBody() bool {
	if ph.Bodies() != 1 {
		return false
	}
	switch ph.Kind {
	case PhaseBaselines:
		return ph.Baselines != nil
	case PhaseSeedRecords:
		return ph.SeedRecords != nil
	case PhaseCriticTraining:
		return ph.CriticTraining != nil
	case PhaseCriticEval:
		return ph.CriticEval != nil
	case PhaseRL:
		return ph.RL != nil
	case PhaseEvolution:
		return ph.Evolution != nil
	case PhaseEvaluation:
		return ph.Evaluation != nil
	}
	return false
}

// Loop is the name of the loop an RL or evolution phase runs; "" for
// another kind.
func (ph *Phase) Loop() string {
	switch {
	case ph.RL != nil:
		return ph.RL.Loop
	case ph.Evolution != nil:
		return ph.Evolution.Loop
	}
	return ""
}

// BaselinesBody is a baselines phase's: the tasks it measures, one real
// run each; the runtime runs no baseline that is not listed here.
type BaselinesBody struct {
	Tasks []TaskRef `json:"tasks"`
}

// SeedRecordsBody is a seed-records phase's: real runs on train tasks
// whose results form the world model's first context.
type SeedRecordsBody struct {
	// Select is how proposals are picked: "random", or
	// "baseline_neighbours" (one edit of each kept).
	Select string `json:"select"`
	// Proposer and Builder are the roles it calls, by name (Builder may
	// be empty).
	Proposer string `json:"proposer"`
	Builder  string `json:"builder,omitempty"`
	// Proposals is how many proposals it makes per environment, each
	// built and, when it builds, run once.
	Proposals map[string]int `json:"proposals"`
}

// RLBody is an RL phase's: the loop it runs (Variant.Loops names its
// bindings), its counts, and the world model's calibration rounds that run
// between its steps.
type RLBody struct {
	Loop      string `json:"loop"`
	Steps     Count  `json:"steps"`
	Refreshes Count  `json:"refreshes"`
	// States is how many of a rollout refresh's states come from each
	// environment.
	States map[string]int `json:"states,omitempty"`
	// Calibration is the rounds run inside the phase; nil: none.
	Calibration *Calibration `json:"calibration,omitempty"`
}

// Calibration is the world model's calibration inside an RL phase: its
// rounds, in order, and how a round compares predicted and real gains:
// each divided by its task's scale unless Normalize is "none", then
// clipped to [-Clip, Clip] (0: not clipped), as the loop's reward does.
type Calibration struct {
	// Select is how a round picks the proposals it runs: "top_predicted"
	// or "random".
	Select    string              `json:"select"`
	Normalize string              `json:"normalize"`
	Clip      float64             `json:"clip,omitempty"`
	Rounds    []*CalibrationRound `json:"rounds"`
}

// CalibrationRound is one round: after policy step AfterStep, Runs real
// runs of the loop's rated proposals, at most Proposals of them from each
// environment. Its runs are charged to Name; Calls counts them (they are
// not in the RL phase's Calls).
type CalibrationRound struct {
	Name      string         `json:"name"`
	AfterStep int            `json:"after_step"`
	Runs      int            `json:"runs"`
	Proposals map[string]int `json:"proposals,omitempty"`
	Calls     Calls          `json:"calls"`
	Source    diag.Range     `json:"source"`
}

// EvolutionBody is an evolution phase's: the loop it runs (Variant.Loops
// names its bindings) and, when its screen critic adapts as it runs, the
// updates that make it do so.
type EvolutionBody struct {
	Loop string `json:"loop"`
	// Continual adapts the loop's screen critic; nil: it stays frozen.
	Continual *CriticContinual `json:"continual,omitempty"`
}

// Builder is the builder role a seed-records or evaluation phase calls;
// "" for none or another kind (a loop's is its Loop's).
func (ph *Phase) Builder() string {
	switch {
	case ph.SeedRecords != nil:
		return ph.SeedRecords.Builder
	case ph.Evaluation != nil:
		return ph.Evaluation.Builder
	}
	return ""
}
