package plan

import (
	"cmp"
	"slices"
)

// Canonicalize puts every list whose order means nothing into one order,
// by name: plugins, environments, roles, rewards and critics, and the tasks
// a baselines phase measures (by environment, in each environment's task
// order). Two specs that declare the same blocks in another order then
// lower to the same plan, with the same hash, and the runtime, which walks
// these lists (starting plugins, sampling tasks over environments), does
// the same run. Loops and phases keep their order: they run in it. Task
// lists keep theirs: the compiler lists them in a canonical order already.
func (p *Plan) Canonicalize() {
	for _, v := range p.Variants {
		slices.SortStableFunc(v.Plugins, func(a, b *Plugin) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(v.Envs, func(a, b *Environment) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(v.Roles, func(a, b *Role) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(v.Rewards, func(a, b *Reward) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(v.Critics, func(a, b *Critic) int { return cmp.Compare(a.Name, b.Name) })
		for _, ph := range v.Phases {
			slices.SortStableFunc(ph.Tasks, func(a, b TaskRef) int { return cmp.Compare(a.Env, b.Env) })
		}
	}
}
