// Package critic holds the labels of the critics paper's execution-labelled
// parent/child pairs.
//
// A child's 3-way label compares its metric with its parent's (Improve,
// Tie, Lose); its 5-way label (BigWin, MediumWin, SmallWin, Tie, Lose) is
// the paper's parent-specific rule (appendix C.3) over the relative
// improvements of all of the parent's feasible executed children: Ladder
// computes it, and drops a parent with fewer than three improving
// children, as the paper does.
//
// The label strings are those of the critic protocol (plugins/payload), so
// a critic's votes compare with a pair's labels as written. The package is
// a leaf: the standard library only. The pairs export (runtime/pairs)
// labels a run's pairs with it.
package critic
