package critic

import (
	"fmt"
	"math"
	"sort"
)

// MaxVotes is the most votes one example may carry.
const MaxVotes = 1024

// Example is one labelled pair and a critic's votes on it.
type Example struct {
	// Label3 is the pair's 3-way label; Label5 its 5-way label, "" when
	// its parent has none.
	Label3, Label5 string
	// Stratum is the pair's teacher-assistance stratum, "" when unknown.
	Stratum string
	// Votes are the critic's sampled verdicts, labels of its space; a vote
	// that is not one (a failed or unparsable answer) counts as the
	// space's worst label, as the runtime's aggregation counts it.
	Votes []string
}

// Metrics are a critic's static figures over a set of examples, each
// judged by the majority of its first k votes. A pointer figure is nil
// where it is undefined (see each).
type Metrics struct {
	K int `json:"k"`
	N int `json:"examples"`
	// ImproveAccuracy: the share whose binary verdict (a win of any size
	// or not) matches whether the child improved.
	ImproveAccuracy float64 `json:"improve_accuracy"`
	// Dir3: the share whose verdict, as improve/tie/lose, is the 3-way
	// label.
	Dir3 float64 `json:"dir3"`
	// F1 of the Improve class, the paper's "F1 for the binary improvement
	// decision": 2TP / (2TP + FP + FN); nil when no example improved and
	// none was judged to.
	F1 *float64 `json:"f1"`
	// Ladder5: the share of the examples with a 5-way label whose verdict
	// is exactly it; nil for a 3-way critic or without such examples.
	Ladder5 *float64 `json:"ladder5"`
	N5      int      `json:"ladder5_examples"`
	// AUROC of the share of votes for a win, as a score of whether the
	// child improved (ties count half); nil without both kinds.
	AUROC *float64 `json:"auroc"`
	// ConfidenceAUROC of the verdict's agreement (1 - uncertainty) as a
	// score of whether the verdict is right (Dir-3); nil without both
	// right and wrong verdicts.
	ConfidenceAUROC *float64 `json:"confidence_auroc"`
}

// Routing is the uncertainty routing at a threshold T: an example is
// routed to a real run when its uncertainty u = 1 - (largest vote share)
// is at least T (the paper's rule: below T the majority verdict is used).
// An error is a verdict whose direction (improve/tie/lose) is not the
// 3-way label.
type Routing struct {
	T      float64 `json:"threshold"`
	K      int     `json:"k"`
	Errors int     `json:"errors"`
	Routed int     `json:"routed"`
	// RoutedErrors are errors that were routed.
	RoutedErrors int `json:"routed_errors"`
	// ErrorRecall is RoutedErrors / Errors; nil without errors.
	ErrorRecall *float64 `json:"error_recall"`
	// RoutedShare is Routed over all examples.
	RoutedShare float64 `json:"routed_share"`
}

// verdict is one example's aggregated votes.
type verdict struct {
	label        string  // the majority label; the worst of tied labels
	uncertainty  float64 // 1 - the largest vote share
	improveShare float64 // the share of votes for a win
}

// judge aggregates the first k votes of an example in space.
func judge(space string, votes []string) verdict {
	labels := Labels(space)
	worst := len(labels) - 1
	counts := make([]int, len(labels))
	wins := 0
	for _, v := range votes {
		r := Rank(space, v)
		if r < 0 {
			r = worst
		}
		counts[r]++
		if Direction(labels[r]) == Improve {
			wins++
		}
	}
	best := 0
	for r, n := range counts {
		if n >= counts[best] {
			best = r // ">=": among tied labels the worst wins
		}
	}
	k := float64(len(votes))
	return verdict{label: labels[best], uncertainty: 1 - float64(counts[best])/k, improveShare: float64(wins) / k}
}

// check validates the inputs of Evaluate and Route.
func check(space string, ex []Example, k int) error {
	if Labels(space) == nil {
		return fmt.Errorf("label space %q: use 3way or 5way", space)
	}
	if k < 1 || k > MaxVotes {
		return fmt.Errorf("k = %d: give from 1 to %d votes", k, MaxVotes)
	}
	if len(ex) == 0 {
		return fmt.Errorf("no examples")
	}
	for i, e := range ex {
		if Rank(Space3, e.Label3) < 0 {
			return fmt.Errorf("example %d: 3-way label %q: use improve, tie or lose", i+1, e.Label3)
		}
		if e.Label5 != "" && Rank(Space5, e.Label5) < 0 {
			return fmt.Errorf("example %d: 5-way label %q: use BigWin, MediumWin, SmallWin, Tie or Lose", i+1, e.Label5)
		}
		if len(e.Votes) < k {
			return fmt.Errorf("example %d has %d votes, fewer than k = %d", i+1, len(e.Votes), k)
		}
	}
	return nil
}

// Evaluate computes a critic's metrics in label space space (3way or
// 5way) from the first k votes of every example.
func Evaluate(space string, ex []Example, k int) (Metrics, error) {
	if err := check(space, ex, k); err != nil {
		return Metrics{}, err
	}
	m := Metrics{K: k, N: len(ex)}
	var imp, dir, ladder, tp, fp, fn int
	var winScore, confScore []float64
	var improved, right []bool
	for _, e := range ex {
		v := judge(space, e.Votes[:k])
		predImp, isImp := Direction(v.label) == Improve, e.Label3 == Improve
		if predImp == isImp {
			imp++
		}
		ok := Direction(v.label) == e.Label3
		if ok {
			dir++
		}
		switch {
		case predImp && isImp:
			tp++
		case predImp:
			fp++
		case isImp:
			fn++
		}
		if space == Space5 && e.Label5 != "" {
			m.N5++
			if v.label == e.Label5 {
				ladder++
			}
		}
		winScore, improved = append(winScore, v.improveShare), append(improved, isImp)
		confScore, right = append(confScore, 1-v.uncertainty), append(right, ok)
	}
	n := float64(len(ex))
	m.ImproveAccuracy, m.Dir3 = float64(imp)/n, float64(dir)/n
	if d := 2*tp + fp + fn; d > 0 {
		f := float64(2*tp) / float64(d)
		m.F1 = &f
	}
	if m.N5 > 0 {
		l := float64(ladder) / float64(m.N5)
		m.Ladder5 = &l
	}
	m.AUROC = AUROC(winScore, improved)
	m.ConfidenceAUROC = AUROC(confScore, right)
	return m, nil
}

// Route computes the routing figures at each threshold in ts from the
// first k votes of every example.
func Route(space string, ex []Example, k int, ts []float64) ([]Routing, error) {
	if err := check(space, ex, k); err != nil {
		return nil, err
	}
	vs := make([]verdict, len(ex))
	for i, e := range ex {
		vs[i] = judge(space, e.Votes[:k])
	}
	var out []Routing
	for _, t := range ts {
		if math.IsNaN(t) || t < 0 || t > 1 {
			return nil, fmt.Errorf("threshold %g: give a share from 0 to 1", t)
		}
		r := Routing{T: t, K: k}
		for i, e := range ex {
			wrong := Direction(vs[i].label) != e.Label3
			// A small tolerance, so that u = 4/16 routes at T = 0.25.
			routed := vs[i].uncertainty >= t-1e-12
			if wrong {
				r.Errors++
			}
			if routed {
				r.Routed++
				if wrong {
					r.RoutedErrors++
				}
			}
		}
		if r.Errors > 0 {
			rec := float64(r.RoutedErrors) / float64(r.Errors)
			r.ErrorRecall = &rec
		}
		r.RoutedShare = float64(r.Routed) / float64(len(ex))
		out = append(out, r)
	}
	return out, nil
}

// AUROC is the probability that a positive scores above a negative, a tie
// counting half (the Mann-Whitney statistic, from average ranks); nil
// without both positives and negatives.
func AUROC(score []float64, positive []bool) *float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return score[idx[a]] < score[idx[b]] })
	var rankSum float64
	var pos, neg int
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && score[idx[j]] == score[idx[i]] {
			j++
		}
		avg := float64(i+1+j) / 2 // the mean of ranks i+1 .. j
		for _, at := range idx[i:j] {
			if positive[at] {
				rankSum += avg
			}
		}
		i = j
	}
	for _, p := range positive {
		if p {
			pos++
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return nil
	}
	a := (rankSum - float64(pos)*float64(pos+1)/2) / (float64(pos) * float64(neg))
	return &a
}
