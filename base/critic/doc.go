// Package critic holds the labels of the critics paper's execution-labelled
// parent/child pairs and the static metrics of a critic over them.
//
// Labels: a child's 3-way label compares its metric with its parent's
// (Improve, Tie, Lose); its 5-way label (BigWin, MediumWin, SmallWin, Tie,
// Lose) is the paper's parent-specific rule (appendix C.3) over the
// relative improvements of all of the parent's feasible executed children:
// Ladder computes it, and drops a parent with fewer than three improving
// children, as the paper does.
//
// Metrics: given labelled examples and a critic's votes on each, Evaluate
// judges each example by the majority of its first k votes and computes
// Improve accuracy, Dir-3, F1 of the Improve class, 5-Ladder and the AUROC
// of the vote-based scores; Route computes error recall and routed share
// at routing thresholds T. Called at several k and T, they are the
// paper's uncertainty analysis (its section 5.3: AUROC against k, error
// recall and routed share against T).
//
// The label strings are those of the critic protocol (plugins/payload), so
// a critic's votes compare with a pair's labels as written. The package is
// a leaf: the standard library only. The pairs export (runtime/pairs)
// labels a run's pairs with it.
package critic
