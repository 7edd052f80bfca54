package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
	"github.com/assay-lang/assay/runtime/pairs"
)

// cmdCheckPairs runs "checkpairs FILE RUNDIR MIN5": it checks the pairs
// exported to FILE against the journal of the run in RUNDIR, with the
// labels worked out here independently of the export: every candidate run
// with a lineage that finished is one pair; each side's metric is the
// journal's (the parent's is the baseline or its own run's); the 3-way
// label compares them; the 5-way label follows the paper's rule over the
// parent's children; and at least MIN5 pairs have a 5-way label.
func cmdCheckPairs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: checkpairs FILE RUNDIR MIN5")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	ps, err := pairs.ReadJSONL(f)
	ts.Check(err)
	j, err := journal.OpenReadOnly(filepath.Join(ts.MkAbs(args[1]), "journal.db"))
	ts.Check(err)
	defer j.Close()
	min5, err := strconv.Atoi(args[2])
	ts.Check(err)
	byKey := map[string]journal.Run{}
	byCand := map[string]journal.Run{}
	want := 0
	for _, r := range j.Runs() {
		byKey[r.Key] = r
		if r.Reservation.Lineage != nil && r.Result != nil && r.Result.Status == plugins.StatusFinished {
			byCand[r.Reservation.Lineage.Candidate] = r
			want++
		}
	}
	if len(ps) != want || want == 0 {
		ts.Fatalf("%d pairs exported, the journal has %d finished candidate runs with a parent", len(ps), want)
	}
	groups := checkPairs3(ts, ps, byKey, byCand)
	labelled := 0
	for _, idx := range groups {
		labelled += checkLabels5(ts, ps, idx)
	}
	if labelled < min5 {
		ts.Fatalf("%d pairs have a 5-way label, want at least %d", labelled, min5)
	}
	fmt.Fprintf(ts.Stdout(), "%d pairs checked, %d with a 5-way label\n", len(ps), labelled)
}

// checkPairs3 checks each pair's metrics against the journal and its
// 3-way label, and groups the pairs by parent.
func checkPairs3(ts *testscript.TestScript, ps []pairs.Pair, byKey, byCand map[string]journal.Run) map[string][]int {
	groups := map[string][]int{}
	for i, p := range ps {
		r := byKey[p.RunKey]
		if r.Result == nil || r.Result.Metric != p.Child.Metric || r.Reservation.Lineage.Candidate != p.Candidate {
			ts.Fatalf("pair %s: child metric %g is not its run's", p.Candidate, p.Child.Metric)
		}
		parent := *r.Reservation.Baseline
		if p.ParentCandidate != "" {
			parent = byCand[p.ParentCandidate].Result.Metric
		}
		if parent != p.Parent.Metric {
			ts.Fatalf("pair %s: parent metric %g, the journal's is %g", p.Candidate, p.Parent.Metric, parent)
		}
		l3 := "tie"
		if better := p.Child.Metric < parent; p.Child.Metric != parent {
			l3 = map[bool]string{true: "improve", false: "lose"}[better == p.Minimize]
		}
		if p.Label3 != l3 {
			ts.Fatalf("pair %s: label3 %s, want %s (parent %g, child %g)", p.Candidate, p.Label3, l3, parent, p.Child.Metric)
		}
		k := p.Env + "/" + p.Task + "/" + p.ParentCandidate
		groups[k] = append(groups[k], i)
	}
	return groups
}

// checkLabels5 checks the 5-way labels of one parent's pairs (indexes idx
// of ps) by the paper's rule and returns how many have one.
func checkLabels5(ts *testscript.TestScript, ps []pairs.Pair, idx []int) int {
	labelled := 0
	var ds []float64
	up := 0
	for _, i := range idx {
		d := (ps[i].Child.Metric - ps[i].Parent.Metric) / math.Abs(ps[i].Parent.Metric)
		if ps[i].Minimize {
			d = -d
		}
		ds = append(ds, d)
		if d > 0 {
			up++
		}
	}
	var mu, ss float64
	for _, d := range ds {
		mu += d / float64(len(ds))
	}
	for _, d := range ds {
		ss += (d - mu) * (d - mu) / float64(len(ds))
	}
	for n, i := range idx {
		d, z := ds[n], (ds[n]-mu)/math.Sqrt(ss)
		l5 := ladder5(d, z, up)
		if ps[i].Label5 != l5 {
			ts.Fatalf("pair %s: label5 %q, want %q (d %g, z %g)", ps[i].Candidate, ps[i].Label5, l5, d, z)
		}
		if l5 != "" {
			labelled++
		}
	}
	return labelled
}

// ladder5 is the paper's 5-way label of a child with relative gain d and
// z-score z among its parent's children, up of which improved.
func ladder5(d, z float64, up int) string {
	switch {
	case up < 3:
		return ""
	case d > 0 && (d > 0.25 || z > 2):
		return "BigWin"
	case d > 0 && (d > 0.10 || z > 1):
		return "MediumWin"
	case d > 0 && z > 0.2:
		return "SmallWin"
	case d >= 0 || math.Abs(z) <= 0.2:
		return "Tie"
	}
	return "Lose"
}
