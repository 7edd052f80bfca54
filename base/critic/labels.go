package critic

import (
	"fmt"
	"math"
)

// Label spaces, as a critic's configuration names them.
const (
	Space3 = "3way"
	Space5 = "5way"
)

// 3-way labels.
const (
	Improve = "improve"
	Tie     = "tie"
	Lose    = "lose"
)

// 5-way labels, best first.
const (
	BigWin    = "BigWin"
	MediumWin = "MediumWin"
	SmallWin  = "SmallWin"
	Tie5      = "Tie"
	Lose5     = "Lose"
)

// The paper's cut-offs of the 5-way rule: relative improvement above
// bigRel, or z above bigZ, is a BigWin; above medRel or medZ a MediumWin;
// z above smallZ a SmallWin; |z| at most tieZ (or no loss) a Tie.
const (
	bigRel, medRel     = 0.25, 0.10
	bigZ, medZ, smallZ = 2, 1, 0.2
	tieZ               = 0.2
	// MinImproving is how many improving children a parent needs to keep
	// its 5-way labels.
	MinImproving = 3
)

// Labels returns the labels of a space, best first, or nil for an unknown
// space.
func Labels(space string) []string {
	switch space {
	case Space3:
		return []string{Improve, Tie, Lose}
	case Space5:
		return []string{BigWin, MediumWin, SmallWin, Tie5, Lose5}
	}
	return nil
}

// Rank is a label's position in its space, 0 for the best; -1 when the
// label is not in the space.
func Rank(space, label string) int {
	for i, l := range Labels(space) {
		if l == label {
			return i
		}
	}
	return -1
}

// Direction maps a label of either space to its 3-way label: a win of any
// size is Improve. It returns "" for a label of neither space.
func Direction(label string) string {
	switch label {
	case Improve, BigWin, MediumWin, SmallWin:
		return Improve
	case Tie, Tie5:
		return Tie
	case Lose, Lose5:
		return Lose
	}
	return ""
}

// Label3 is the 3-way label of a child's metric against its parent's:
// Improve when strictly better in the metric's direction, Tie when equal,
// Lose otherwise.
func Label3(parent, child float64, minimize bool) string {
	switch {
	case child == parent:
		return Tie
	case (child < parent) == minimize:
		return Improve
	}
	return Lose
}

// Relative is the signed relative improvement of a child over its parent,
// (child - parent) / |parent|, negated for a metric to minimize, so that a
// positive value is always an improvement. It fails for a parent metric of
// zero (no relative change exists) and for a value that is not finite.
func Relative(parent, child float64, minimize bool) (float64, error) {
	if parent == 0 {
		return 0, fmt.Errorf("the parent's metric is 0: a relative improvement is undefined")
	}
	d := (child - parent) / math.Abs(parent)
	if minimize {
		d = -d
	}
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return 0, fmt.Errorf("the relative improvement of %g over %g is not finite", child, parent)
	}
	return d, nil
}

// Ladder gives the 5-way labels of one parent's children, in order, from
// their relative improvements (Relative) over that parent: every feasible
// child that was executed, improving or not. With mu and sigma the mean
// and standard deviation of the improvements, z = (d - mu) / sigma, and the
// first rule that holds gives the label (the paper's appendix C.3):
//
//	BigWin     d > 0 and (d > 0.25 or z > 2)
//	MediumWin  d > 0 and (d > 0.10 or z > 1)
//	SmallWin   d > 0 and z > 0.2
//	Tie        d >= 0 or -0.2 <= z <= 0.2
//	Lose       otherwise
//
// sigma is the population standard deviation (divided by n, the
// "empirical" deviation of the paper's Gaussian fit); when every child has
// the same improvement sigma is 0 and z is taken as 0. A parent with fewer
// than MinImproving children with d > 0 is dropped, as the paper drops it:
// Ladder returns nil and false.
func Ladder(deltas []float64) ([]string, bool) {
	improving := 0
	var mu float64
	for _, d := range deltas {
		if d > 0 {
			improving++
		}
		mu += d
	}
	if improving < MinImproving {
		return nil, false
	}
	n := float64(len(deltas))
	mu /= n
	var ss float64
	for _, d := range deltas {
		ss += (d - mu) * (d - mu)
	}
	sigma := math.Sqrt(ss / n)
	out := make([]string, len(deltas))
	for i, d := range deltas {
		z := 0.0
		if sigma > 0 {
			z = (d - mu) / sigma
		}
		out[i] = ladder1(d, z)
	}
	return out, true
}

// ladder1 is the 5-way rule for one child.
func ladder1(d, z float64) string {
	switch {
	case d > 0 && (d > bigRel || z > bigZ):
		return BigWin
	case d > 0 && (d > medRel || z > medZ):
		return MediumWin
	case d > 0 && z > smallZ:
		return SmallWin
	case d >= 0 || (-tieZ <= z && z <= tieZ):
		return Tie5
	}
	return Lose5
}
