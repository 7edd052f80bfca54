package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/assay-lang/assay/plugins/payload"
)

// The critic estimates the child's gain over its parent with the world
// model's regression (estimate), in units of a task scale (the spread of
// the gains in its records, or criticScale without any), adds noise of
// standard deviation criticNoise * max(temperature, 0.05), and reads the
// label off thresholds on the result, so that k votes of an uncertain pair
// genuinely disagree while a clear-cut pair gets a unanimous verdict.
//
// 3-way: improve above +tieBand, lose below -tieBand, tie between.
// 5-way (the ladder of relative improvement z): BigWin z > 2, MediumWin
// z > 1, SmallWin z > 0.2, Tie z >= -0.2, Lose otherwise.
const (
	criticScale = 0.05
	criticNoise = 0.25
	tieBand     = 0.2
)

// Critique answers the critic role with one sampled label.
func Critique(req *payload.CritiqueRequest, temperature float64, seed int64) (*payload.CritiqueResponse, error) {
	return CritiqueState(req, temperature, seed, nil)
}

// CritiqueState is Critique by a trained critic (st; nil: untrained). A
// teacher's hint is followed: a revealed label is the verdict, and an
// excluded one gives way to its neighbour toward Tie.
func CritiqueState(req *payload.CritiqueRequest, temperature float64, seed int64, st *CriticState) (*payload.CritiqueResponse, error) {
	if payload.LabelSet(req.Labels) == nil {
		return nil, fmt.Errorf("offline critic: labels must be %q or %q, got %q", payload.Labels3, payload.Labels5, req.Labels)
	}
	if st == nil {
		st = &CriticState{}
	}
	if h := req.Hint; h != nil && h.Label != "" {
		return &payload.CritiqueResponse{Label: h.Label, Reason: "consistent with the measured outcome"}, nil
	}
	z := st.criticZ(req)
	r := newRNG(seed, "critic:"+req.Task+":"+req.Child.ID)
	z += r.normal() * criticNoise * math.Max(temperature, 0.05)
	label := ""
	if req.Labels == payload.Labels3 {
		switch {
		case z > tieBand:
			label = payload.LabelImprove
		case z >= -tieBand:
			label = payload.LabelTie
		default:
			label = payload.LabelLose
		}
	} else {
		switch {
		case z > 2:
			label = payload.LabelBigWin
		case z > 1:
			label = payload.LabelMediumWin
		case z > 0.2:
			label = payload.LabelSmallWin
		case z >= -0.2:
			label = payload.Label5Tie
		default:
			label = payload.Label5Lose
		}
	}
	if h := req.Hint; h != nil && h.Exclude == label {
		label = towardTie(req.Labels, label, z)
	}
	return &payload.CritiqueResponse{Label: label, Reason: fmt.Sprintf("estimated relative change %+.2f", z)}, nil
}

// towardTie is the label next to label toward the ladder's middle (Tie's
// neighbour on z's side, for Tie itself).
func towardTie(space, label string, z float64) string {
	set := payload.LabelSet(space)
	i := slices.Index(set, label)
	mid := slices.Index(set, payload.LabelTie)
	if space == payload.Labels5 {
		mid = slices.Index(set, payload.Label5Tie)
	}
	switch {
	case i < 0:
		return label
	case i < mid:
		return set[i+1]
	case i > mid:
		return set[i-1]
	case z >= 0 && i > 0:
		return set[i-1]
	case i+1 < len(set):
		return set[i+1]
	}
	return label
}

// taskScale is the standard deviation of the task's recorded gains (all
// records when the task has fewer than three).
func taskScale(records []payload.Record, task string) float64 {
	var xs []float64
	for _, r := range records {
		if r.Task == task && !r.Infeasible {
			xs = append(xs, r.Gain)
		}
	}
	if len(xs) < 3 {
		xs = xs[:0]
		for _, r := range records {
			if !r.Infeasible {
				xs = append(xs, r.Gain)
			}
		}
	}
	if len(xs) < 3 {
		return criticScale
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	sd := math.Sqrt(v / float64(len(xs)-1))
	if sd < 1e-9 {
		return criticScale
	}
	return sd
}
