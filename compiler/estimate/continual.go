package estimate

import "github.com/assay-lang/assay/compiler/plan"

// continual adds an evolution loop's continual critic updates, priced
// like a critic training's; its calls are the phase's LLM calls.
func (ve *variantEstimate) continual(pe *Phase, ph *plan.Phase) {
	for _, l := range ve.v.Loops {
		if cc := l.Continual; l.Name == ph.Loop && ph.Kind == plan.PhaseEvolution && cc != nil {
			ve.criticTraining(pe, &plan.CriticTraining{Name: cc.Name, SFT: cc.SFT, GRPO: cc.GRPO})
		}
	}
}
