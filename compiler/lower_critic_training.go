package compiler

import (
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// A critic_training block's defaults are in defaults.go (ctSamples, ...).
const (
	// The paper's strata: 44.4% Sampled, 31.6% Revised, 23.9% Guided;
	// the expected teacher calls assume them.
	ctRevisedShare = 0.316 + 0.239
	ctGuidedShare  = 0.239
	// MaxCriticPairs bounds the pairs one phase reads of its file.
	MaxCriticPairs = 1 << 20
	// maxCriticCalls bounds one phase's teacher and critic calls.
	maxCriticCalls = 1 << 32
)

// criticTrainings checks every critic_training block.
func (k *checker) criticTrainings() {
	for _, ct := range k.s.CriticTrainings {
		k.criticTraining(ct)
	}
}

func (k *checker) criticTraining(ct *spec.CriticTraining) {
	at := k.at(ct.NameRange, ct.Range)
	name := "critic_training " + ct.Name
	k.need(ct.Critic.Set, at, name+": critic", "critic = critic.NAME")
	k.need(ct.Pairs.Set, at, name+": pairs", `pairs = "pairs.jsonl" (written by assay export pairs)`)
	if ct.SFT == nil && ct.GRPO == nil {
		k.add(diag.Errorf(CodeMissing, at, "%s trains nothing: it has neither an sft nor a grpo block", name).
			WithDetail("add sft { } (and grpo { steps = 300, pairs_per_step = 256 }), or remove the block"))
	}
	if ct.SFT != nil {
		k.need(ct.Teacher.Set, at, name+": teacher", "teacher = role.NAME, a critic-kind role")
		k.need(ct.Examples.Set, at, name+": examples", "examples = 11000")
	} else {
		// Without SFT no critique is synthesised.
		for _, f := range []struct {
			set  bool
			r    diag.Range
			what string
		}{{ct.Teacher.Set, ct.Teacher.Range, "teacher"}, {ct.Examples.Set, ct.Examples.Range, "examples"}, {ct.Samples.Set, ct.Samples.Range, "samples"}, {ct.Revisions.Set, ct.Revisions.Range, "revisions"}, {ct.Guide.Set, ct.Guide.Range, "guide"}} {
			if f.set {
				k.add(diag.Errorf(CodeNotApplicable, f.r, "%s of %s writes the teacher's critiques for SFT, and the block has no sft", f.what, name).
					WithDetail("remove %s, or add an sft block", f.what))
			}
		}
	}
	k.intMin(ct.Examples, 1, "examples")
	k.intMin(ct.Samples, 1, "samples")
	k.intMin(ct.Revisions, 0, "revisions")
	k.intMin(ct.MinImproving, 0, "min_improving_children")
	if ct.Examples.V > MaxCriticPairs {
		k.add(diag.Errorf(CodeRange, ct.Examples.Range, "examples is at most %d, got %d", MaxCriticPairs, ct.Examples.V))
	}
	k.criticTrainingRoles(ct, name)
	if u := ct.SFT; u != nil {
		k.criticUpdate(ct, name+": sft", u.Trainer, u.GPU, u.GPUs, u.Hours, u.Adapter, k.at(u.Range, at))
		k.numMin(u.LearningRate, 0, true, "sft.learning_rate")
		k.intMin(u.Epochs, 1, "sft.epochs")
		k.loraRank(name+": sft", u.Trainer, u.LoRARank)
	}
	if g := ct.GRPO; g != nil {
		gat := k.at(g.Range, at)
		k.criticUpdate(ct, name+": grpo", g.Trainer, g.GPU, g.GPUs, g.Hours, g.Adapter, gat)
		k.need(g.Steps.Set, gat, name+": grpo.steps", "steps = 300")
		k.need(g.Batch.Set, gat, name+": grpo.pairs_per_step", "pairs_per_step = 256")
		k.intMin(g.Steps, 1, "grpo.steps")
		k.intMin(g.Batch, 1, "grpo.pairs_per_step")
		k.intMin(g.Group, 2, "grpo.group")
		k.numMin(g.KLCoef, 0, false, "grpo.kl_coef")
		k.numMin(g.LearningRate, 0, true, "grpo.learning_rate")
		k.numMin(g.WeightDecay, 0, false, "grpo.weight_decay")
		k.loraRank(name+": grpo", g.Trainer, g.LoRARank)
		k.criticBalance(ct, g, name)
		if calls := float64(g.Steps.V) * float64(g.Batch.V) * float64(ctGroup.of(g.Group)); calls > maxCriticCalls {
			k.add(diag.Errorf(CodeRange, gat, "%s makes %.0f critic calls, more than %d", name, calls, int64(maxCriticCalls)))
		}
	}
}

// criticTrainingRoles checks that the critic's role and the teacher are
// critic roles.
func (k *checker) criticTrainingRoles(ct *spec.CriticTraining, name string) {
	if cr := k.x.critics[ct.Critic.Name]; cr != nil {
		if r := k.x.roles[cr.Role.Name]; r != nil && r.Kind.V != plugKindCritic {
			k.add(diag.Errorf(CodeRefKind, ct.Critic.Range, "%s trains critic %q, whose role %q is a %s role", name, cr.Name, r.Name, r.Kind.V))
		}
	}
	if r := k.x.roles[ct.Teacher.Name]; ct.Teacher.Set && r != nil && r.Kind.V != plugKindCritic {
		k.add(diag.Errorf(CodeRefKind, ct.Teacher.Range, "teacher of %s must be a critic-kind role; role %q is a %s role", name, r.Name, r.Kind.V).
			WithDetail("write kind = \"critic\" in role %q: the teacher writes critiques in the critic's label space", r.Name))
	}
}

const plugKindCritic = "critic"

// criticTrained reports whether a critic_training block trains critic
// name.
func (k *checker) criticTrained(name string) bool {
	for _, ct := range k.s.CriticTrainings {
		if ct.Critic.Set && ct.Critic.Name == name {
			return true
		}
	}
	return false
}

// criticUpdate checks an sft or grpo block's trainer and resources: a
// command plugin with an update_command and a critic served from an
// endpoint that loads adapters; or no trainer, a critic whose plugin
// trains itself, and then no resources.
func (k *checker) criticUpdate(ct *spec.CriticTraining, what string, tr spec.Ref, gpu spec.Val[string], gpus spec.Val[int], hours spec.Val[float64], adapter spec.Val[string], at diag.Range) {
	sch := &pluginconfig.Schema{}
	var plugin string
	if cr := k.x.critics[ct.Critic.Name]; cr != nil {
		if r := k.x.roles[cr.Role.Name]; r != nil {
			if p := k.x.plugins[r.LLM.Name]; p != nil {
				if got, ok := pluginconfig.Lookup(p.Source.V); ok {
					plugin, sch = p.Source.V, got
				}
			}
		}
	}
	if !tr.Set {
		if plugin != "" && !sch.TrainsPolicy {
			k.add(diag.Errorf(CodeCriticTrainer, at, "%s has no trainer, and the critic's plugin %s cannot train itself", what, plugin).
				WithDetail("write trainer = plugin.NAME, a builtin:command plugin with update_command (see docs/critic-training.md)"))
		}
		for _, f := range []struct {
			set  bool
			r    diag.Range
			name string
		}{{gpu.Set, gpu.Range, "gpu"}, {gpus.Set, gpus.Range, "gpus"}, {hours.Set, hours.Range, "hours"}} {
			if f.set {
				k.add(diag.Errorf(CodeNotApplicable, f.r, "%s: %s prices an update of a trainer, and the block has none", what, f.name).
					WithDetail("remove %s, or write trainer = plugin.NAME", f.name))
			}
		}
		return
	}
	if plugin != "" && !sch.ServesAdapters {
		k.add(diag.Errorf(CodeCriticTrainer, tr.Range, "%s trains the critic with a command, and its plugin %s cannot serve the adapter", what, plugin).
			WithDetail("serve the critic's role with builtin:openai from an endpoint that loads adapters, or remove trainer when the plugin trains itself"))
	}
	if p := k.x.plugins[tr.Name]; p != nil {
		if tsch, ok := pluginconfig.Lookup(p.Source.V); ok {
			switch {
			case tsch.UpdateKey == "":
				k.add(diag.Errorf(CodeRefKind, tr.Range, "plugin %q (%s) cannot run an update", p.Name, p.Source.V).
					WithDetail("name a plugin with source = \"builtin:command\" whose config has update_command"))
			case !hasKey(p.Config.V, tsch.UpdateKey):
				k.add(diag.Errorf(CodeMissing, k.at(p.Config.Range, p.NameRange, tr.Range), "plugin %q runs %s, and its config has no %s", p.Name, what, tsch.UpdateKey))
			}
		}
	}
	k.need(gpu.Set, at, what+".gpu", `gpu = "H100"`)
	k.need(gpus.Set, at, what+".gpus", "gpus = 8")
	k.need(hours.Set, at, what+".hours", "hours = 2")
	k.intMin(gpus, 1, what+".gpus")
	k.numMin(hours, 0, true, what+".hours")
	if gpu.Set {
		if _, ok := k.prices()[gpu.V]; !ok {
			k.add(diag.Errorf(CodePriceMissing, gpu.Range, "GPU type %q of %s has no price", gpu.V, what).
				WithDetail("%s", priceHint(gpu.V, sortedKeys(k.prices()), "an update")))
		}
	}
	if ex := k.s.Executor; ex != nil && gpus.Set && gpus.V > ex.GPUs.V && (ex.GPUs.Set || ex.Kind.V == "local") {
		k.add(diag.Errorf(CodeExecutorGPUs, gpus.Range, "%s needs %d GPUs, and the executor has %d", what, gpus.V, ex.GPUs.V))
	}
	if adapter.Set && !adapterNameRE.MatchString(adapter.V) {
		k.add(diag.Errorf(CodeRange, adapter.Range, "%s: adapter %q is not a name an endpoint serves adapters under", what, adapter.V).
			WithDetail("use letters, digits, '.', '_' and '-', starting with a letter or digit"))
	}
}

// criticTrainings lowers every critic_training block to its phase, after
// the seed records and before the loops.
func (pl *phaseLowering) criticTrainings() {
	lv := pl.lv
	for _, ct := range lv.s.CriticTrainings {
		cr := lv.x.critics[ct.Critic.Name]
		out := &plan.CriticTraining{Name: ct.Name, Critic: cr.Name, Role: cr.Role.Name, Teacher: ct.Teacher.Name,
			Labels: cr.Labels.V, Pairs: ct.Pairs.V, Split: ct.Split.V, MinImproving: ctMinImproving.of(ct.MinImproving), MaxPairs: MaxCriticPairs, Source: firstValid(ct.Pairs.Range, ct.NameRange)}
		if ct.Pairs.Range.Filename == SetSource {
			// A --set path is the working directory's: made absolute
			// here, as it has no file to be relative to.
			out.Pairs, out.Source = repoPath(ct.Pairs), ct.NameRange
		}
		r := pl.newPhase(plan.PhaseCriticTraining+"."+ct.Name, plan.PhaseCriticTraining, ct.NameRange)
		r.ph.CriticTraining = out
		r.ph.Calls.LLM = map[string]plan.Count{}
		if ct.SFT != nil {
			out.Examples, out.Samples, out.Revisions, out.Guide = ct.Examples.V, ctSamples.of(ct.Samples), ctRevisions.of(ct.Revisions), ctGuide.of(ct.Guide)
			n := float64(out.Examples)
			guided := 0.0
			if out.Guide {
				guided = 1
			}
			// Every pair gets its samples; at most, every one is
			// revised and then guided.
			low := n * float64(out.Samples)
			r.ph.Calls.LLM[out.Teacher] = plan.Count{Low: low,
				Expected: low + n*ctRevisedShare*float64(out.Revisions) + n*ctGuidedShare*guided,
				High:     low + n*float64(out.Revisions) + n*guided}
			u := ct.SFT
			out.SFT = lv.criticUpdate("sft", u.Trainer, u.GPU, u.GPUs, u.Hours, ctSFTAdapter.of(u.Adapter, ct.Name))
			out.SFT.LearningRate, out.SFT.Epochs, out.SFT.LoRARank = ctSFTLR.of(u.LearningRate), ctSFTEpochs.of(u.Epochs), u.LoRARank.V
			// A pair whose calls all fail, or a teacher that will not follow
			// the label, can leave no critique to train on.
			out.SFT.Updates = plan.Count{Low: 0, Expected: 1, High: 1}
		}
		if g := ct.GRPO; g != nil {
			out.GRPO = lv.criticUpdate("grpo", g.Trainer, g.GPU, g.GPUs, g.Hours, ctGRPOAdapter.of(g.Adapter, ct.Name))
			u := out.GRPO
			u.Steps, u.Batch, u.Group = g.Steps.V, g.Batch.V, ctGroup.of(g.Group)
			u.KLCoef, u.LearningRate, u.WeightDecay, u.LoRARank = ctKL.of(g.KLCoef), ctGRPOLR.of(g.LearningRate), ctWeightDecay.of(g.WeightDecay), g.LoRARank.V
			u.Balance = lowerCriticBalance(g, out.Labels)
			// A step whose groups all agree has nothing to learn from: it
			// makes no update.
			u.Updates = plan.Count{Low: 0, Expected: float64(u.Steps), High: float64(u.Steps)}
			calls := float64(u.Steps * u.Batch * u.Group)
			r.ph.Calls.LLM[out.Role] = r.ph.Calls.LLM[out.Role].Add(plan.Exact(calls))
		}
	}
}

// criticUpdate lowers an sft or grpo block's trainer and cost.
func (lv *lowering) criticUpdate(alg string, tr spec.Ref, gpu spec.Val[string], gpus spec.Val[int], hours spec.Val[float64], adapter string) *plan.CriticUpdate {
	u := &plan.CriticUpdate{Algorithm: alg, Adapter: adapter}
	if !tr.Set {
		return u
	}
	u.Trainer, u.GPU, u.GPUs, u.Hours = tr.Name, gpu.V, gpus.V, hours.V
	u.GPUHours = float64(gpus.V) * hours.V
	u.TimeLimitSeconds = timeLimit(hours.V)
	if lv.s.Prices != nil {
		u.USD = u.GPUHours * lv.s.Prices.GPU.V[gpu.V]
	}
	return u
}

// criticTrainingSpend is a critic training's updates in the units the
// runtime reserves: their GPU-hours and dollars, low and high.
func criticTrainingSpend(ct *plan.CriticTraining) (low, high spend) {
	for _, u := range []*plan.CriticUpdate{ct.SFT, ct.GRPO} {
		if u == nil {
			continue
		}
		low = low.add(spend{0, mul(u.Updates.Low, u.GPUHours), mul(u.Updates.Low, u.USD)})
		high = high.add(spend{0, mul(u.Updates.High, u.GPUHours), mul(u.Updates.High, u.USD)})
	}
	return low, high
}

// ctTrainer is an sft or grpo block's trainer reference (unset for none).
func ctTrainer[T interface {
	*spec.CriticSFT | *spec.CriticGRPO
}](b T) spec.Ref {
	switch u := any(b).(type) {
	case *spec.CriticSFT:
		if u != nil {
			return u.Trainer
		}
	case *spec.CriticGRPO:
		if u != nil {
			return u.Trainer
		}
	}
	return spec.Ref{}
}
