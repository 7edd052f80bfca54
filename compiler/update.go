package compiler

import (
	"fmt"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// updateDomain checks what a loop's policy training needs beyond its own
// fields: a trainer that can run an update, a proposer served by a plugin
// that can serve the adapter it writes, a priced GPU type and room on the
// executor; and that dynamic sampling's fields apply.
func (k *checker) updateDomain(l *spec.Loop) {
	if l.Kind.V != "rl" {
		return
	}
	k.dynamicSamplingApplies(l)
	u := l.Update
	if u == nil {
		return
	}
	k.updateTrainer(l, u)
	k.updateProposer(l, u)
	k.updateResources(l, u)
}

// dynamicSamplingApplies refuses the refill fields of an RL loop that
// refills no group.
func (k *checker) dynamicSamplingApplies(l *spec.Loop) {
	keep := l.ZeroVariance.V == "keep"
	if l.ResampleRounds.Set && l.ResampleRounds.V > 0 && keep {
		k.add(diag.Errorf(CodeNotApplicable, l.ResampleRounds.Range, "resample_rounds refills the groups dynamic sampling drops, and loop %q keeps them (zero_variance = \"keep\")", l.Name).
			WithDetail("remove resample_rounds, or write zero_variance = \"drop\""))
	}
	if l.ExpectedDropped.Set && (keep || l.ResampleRounds.V == 0) {
		k.add(diag.Errorf(CodeNotApplicable, l.ExpectedDropped.Range, "expected_dropped prices the refill of dropped groups, and loop %q refills none", l.Name).
			WithDetail("remove expected_dropped, or set resample_rounds above 0 with zero_variance = \"drop\""))
	}
}

// updateTrainer checks that an update's trainer can run a policy update.
func (k *checker) updateTrainer(l *spec.Loop, u *spec.PolicyUpdate) {
	if p := k.x.plugins[u.Trainer.Name]; u.Trainer.Set && p != nil {
		if sch, ok := pluginconfig.Lookup(p.Source.V); ok {
			switch {
			case sch.UpdateKey == "":
				k.add(diag.Errorf(CodeRefKind, u.Trainer.Range, "plugin %q (%s) cannot run a policy update", p.Name, p.Source.V).
					WithDetail("name a plugin with source = \"builtin:command\" whose config has update_command, the command that trains the policy"))
			case !hasKey(p.Config.V, sch.UpdateKey):
				k.add(diag.Errorf(CodeMissing, k.at(p.Config.Range, p.NameRange, u.Trainer.Range), "plugin %q runs loop %q's policy updates, and its config has no %s", p.Name, l.Name, sch.UpdateKey).
					WithDetail("add %s = \"python grpo_step.py --batch {{batch}} --out {{adapter_dir}}\" to its config (see docs/policy-training.md)", sch.UpdateKey))
			}
		}
	}
}

// updateProposer checks that the trained proposer's plugin serves the
// adapter an update writes, rather than training itself or serving none.
func (k *checker) updateProposer(l *spec.Loop, u *spec.PolicyUpdate) {
	at := k.at(u.Range, l.NameRange, l.Range)
	if role := k.x.roles[l.Proposer.Name]; role != nil && role.LLM.Set {
		if p := k.x.plugins[role.LLM.Name]; p != nil {
			if sch, ok := pluginconfig.Lookup(p.Source.V); ok {
				switch {
				case sch.TrainsPolicy:
					k.add(diag.Errorf(CodeNotApplicable, at, "loop %q trains proposer %q, whose plugin %s updates the policy itself", l.Name, role.Name, p.Source.V).
						WithDetail("remove the update block, or serve the proposer with builtin:openai from an endpoint that loads adapters"))
				case !sch.ServesAdapters:
					k.add(diag.Errorf(CodeNotApplicable, at, "loop %q trains proposer %q, whose plugin %s cannot serve a trained adapter", l.Name, role.Name, p.Source.V).
						WithDetail("serve the proposer with builtin:openai from an endpoint that loads adapters (vLLM with --enable-lora)"))
				}
			}
		}
	}
}

// updateResources checks that an update's GPU type is priced and that the
// executor has its GPUs.
func (k *checker) updateResources(l *spec.Loop, u *spec.PolicyUpdate) {
	if u.GPU.Set {
		if _, ok := k.prices()[u.GPU.V]; !ok {
			k.add(diag.Errorf(CodePriceMissing, u.GPU.Range, "GPU type %q of loop %q's update has no price", u.GPU.V, l.Name).
				WithDetail("%s", priceHint(u.GPU.V, sortedKeys(k.prices()), "an update")))
		}
	}
	if ex := k.s.Executor; ex != nil && u.GPUs.Set && u.GPUs.V > ex.GPUs.V && (ex.GPUs.Set || ex.Kind.V == "local") {
		k.add(diag.Errorf(CodeExecutorGPUs, u.GPUs.Range, "one update of loop %q needs %d GPUs, and the executor has %d", l.Name, u.GPUs.V, ex.GPUs.V).
			WithDetail("raise executor.gpus (the local executor hands out only the GPUs it declares), or lower update.gpus"))
	}
}

// updateHyper checks an update's hyperparameters: a clip range that keeps
// 1 - clip_low above 0, and no negative coefficient or pass count.
func (k *checker) updateHyper(u *spec.PolicyUpdate) {
	k.numMin(u.ClipLow, 0, false, "update.clip_low")
	if u.ClipLow.Set && u.ClipLow.V >= 1 {
		k.add(diag.Errorf(CodeRange, u.ClipLow.Range, "update.clip_low must be below 1, got %g: the ratio is clipped below at 1 - clip_low, which must stay above 0", u.ClipLow.V).
			WithDetail("grpo and dapo clip at 0.2"))
	}
	k.numMin(u.ClipHigh, 0, false, "update.clip_high")
	k.numMin(u.KLCoef, 0, false, "update.kl_coef")
	k.intMin(u.Epochs, 1, "update.epochs")
	k.numMin(u.WeightDecay, 0, false, "update.weight_decay")
}

// maxLoRARank bounds an adapter's rank: far above any LoRA's (the critics
// paper's is 32), below what a typo could make of it.
const maxLoRARank = 4096

// loraRank checks a block's lora_rank: the rank of the adapter its
// trainer's command trains, so without a trainer that runs a command (a
// plugin that trains itself, such as builtin:offline or builtin:tinylm,
// has no adapter) it takes no effect and is refused.
func (k *checker) loraRank(what string, tr spec.Ref, rank spec.Val[int]) {
	if !rank.Set {
		return
	}
	var trainer *spec.Plugin
	if tr.Set {
		trainer = k.x.plugins[tr.Name]
	}
	switch {
	case !tr.Set:
		k.add(diag.Errorf(CodeNotApplicable, rank.Range, "%s: lora_rank is the rank of the adapter a trainer's command trains, and the block has no trainer: the plugin that trains itself has no adapter rank", what).
			WithDetail("remove lora_rank, or write trainer = plugin.NAME, a builtin:command plugin with update_command"))
	case trainer != nil && !runsUpdateCommand(trainer):
		k.add(diag.Errorf(CodeNotApplicable, rank.Range, "%s: lora_rank is the rank of the adapter a trainer's command trains, and plugin %q (%s) has no adapter rank", what, trainer.Name, trainer.Source.V).
			WithDetail("remove lora_rank, or name a builtin:command plugin with update_command as the trainer"))
	case rank.V < 1 || rank.V > maxLoRARank:
		k.add(diag.Errorf(CodeRange, rank.Range, "%s: lora_rank must be 1 to %d, got %d", what, maxLoRARank, rank.V).
			WithDetail("the critics paper trains rank 32"))
	}
}

// runsUpdateCommand says whether a plugin runs an update command.
func runsUpdateCommand(p *spec.Plugin) bool {
	sch, ok := pluginconfig.Lookup(p.Source.V)
	return !ok || sch.UpdateKey != ""
}

// updaterOnly refuses an environment whose trainer is a command plugin
// with only an update_command: it trains policies but runs no proposal.
func (k *checker) updaterOnly() {
	for _, e := range k.s.Environments {
		p := k.x.plugins[e.Trainer.Name]
		if !e.Trainer.Set || p == nil {
			continue
		}
		if sch, ok := pluginconfig.Lookup(p.Source.V); ok && sch.UpdateKey != "" && hasKey(p.Config.V, sch.UpdateKey) && !hasKey(p.Config.V, "command") {
			k.add(diag.Errorf(CodeMissing, e.Trainer.Range, "environment %q runs its proposals on plugin %q, which has an update_command but no command", e.Name, p.Name).
				WithDetail("add command = \"python train.py --config {{config}}\" (and where the metric is) to its config, or name another trainer"))
		}
	}
}

func hasKey(m map[string]any, k string) bool {
	v, ok := m[k]
	return ok && v != nil && fmt.Sprint(v) != ""
}

// prices is the spec's price table (nil without one).
func (k *checker) prices() map[string]float64 {
	if k.s.Prices == nil {
		return nil
	}
	return k.s.Prices.GPU.V
}
