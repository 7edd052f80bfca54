package compiler

import (
	"cmp"
	"slices"

	"github.com/assay-lang/assay/lang/spec"
)

// canonical sorts, in every variant's spec, the blocks whose declaration
// order means nothing: plugins, environments, roles, rewards, critics, and
// each environment's listed tasks (train before holdout, then by name).
// Lowering walks these lists (real runs spread over environments give ties
// to the earlier one), so sorting them before lower makes the plan, its
// hash and the run independent of the order blocks are written in (the
// plan's lists follow the spec's). Loops keep their order: they run in it.
func canonical(c *compilation) {
	for _, v := range c.variants {
		s := v.spec
		slices.SortStableFunc(s.Plugins, func(a, b *spec.Plugin) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(s.Environments, func(a, b *spec.Environment) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(s.Roles, func(a, b *spec.Role) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(s.Rewards, func(a, b *spec.Reward) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(s.Critics, func(a, b *spec.Critic) int { return cmp.Compare(a.Name, b.Name) })
		for _, e := range s.Environments {
			slices.SortStableFunc(e.TaskList, func(a, b *spec.Task) int {
				return cmp.Or(cmp.Compare(splitRank(a.Split.V), splitRank(b.Split.V)), cmp.Compare(a.Name, b.Name))
			})
		}
	}
}

// splitRank orders train tasks before holdout tasks, as counted tasks are.
func splitRank(split string) int {
	if split == "train" {
		return 0
	}
	return 1
}
