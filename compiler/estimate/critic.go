package estimate

import "github.com/assay-lang/assay/compiler/plan"

// criticTraining adds a critic training's updates (its SFT and each GRPO
// step's), which run one after another in its phase, each reserved like a
// real run. Its teacher and critic calls are the phase's LLM calls.
func (ve *variantEstimate) criticTraining(pe *Phase, ct *plan.CriticTraining) {
	out, t := ve.out, &ve.out.Totals
	for _, u := range []*plan.CriticUpdate{ct.SFT, ct.GRPO} {
		if u == nil {
			continue
		}
		gh, usd := u.Updates.Scale(u.GPUHours), u.Updates.Scale(u.USD)
		if out.CriticUpdates == nil {
			out.CriticUpdates = map[string]*Updates{}
		}
		out.CriticUpdates[ct.Name+"."+u.Algorithm] = &Updates{Count: u.Updates, GPUHours: gh, USD: usd}
		if u.Trainer != "" {
			out.GPUHoursByType[u.GPU] = out.GPUHoursByType[u.GPU].Add(gh)
		}
		t.GPUHours, t.USDGPU = t.GPUHours.Add(gh), t.USDGPU.Add(usd)
		pe.USD = pe.USD.Add(usd)
		pe.WallHours = pe.WallHours.Add(u.Updates.Scale(u.Hours))
	}
}

// addCriticUpdates sums o's critic updates into b's.
func (b *Breakdown) addCriticUpdates(o *Breakdown) {
	for k, u := range o.CriticUpdates {
		if b.CriticUpdates == nil {
			b.CriticUpdates = map[string]*Updates{}
		}
		c := b.CriticUpdates[k]
		if c == nil {
			c = &Updates{}
			b.CriticUpdates[k] = c
		}
		c.Count, c.GPUHours, c.USD = c.Count.Add(u.Count), c.GPUHours.Add(u.GPUHours), c.USD.Add(u.USD)
	}
}

// criticSection is the Critic training section: each training's SFT and
// GRPO updates.
func criticSection(r *Report) section {
	s := section{title: "Critic training updates", header: []string{"training", "updates", "GPU-hours", "dollars"}}
	for _, k := range sortedKeys(r.CriticUpdates) {
		u := r.CriticUpdates[k]
		s.rows = append(s.rows, []string{k, formatCount(u.Count, FormatNumber), formatCount(u.GPUHours, FormatNumber), formatCount(u.USD, FormatUSD)})
	}
	return s
}
