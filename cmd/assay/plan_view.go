package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
)

// writePhase renders one phase of a plan for people: its kind and name,
// what its body says it runs, and its counts; an RL phase's calibration
// rounds and an evolution phase's continual updates beneath it.
func writePhase(w io.Writer, ph *plan.Phase) {
	title := termSafe(ph.Name)
	if l := ph.Loop(); l != "" && !strings.Contains(ph.Name, l) {
		title += " (loop " + termSafe(l) + ")"
	}
	if title == ph.Kind {
		title = ""
	}
	fmt.Fprintf(w, "  %-12s %s\n", termSafe(ph.Kind), title)
	var facts []string
	if rl := ph.RL; rl != nil {
		facts = append(facts, "steps "+fmtCount(rl.Steps), "refreshes "+fmtCount(rl.Refreshes))
	}
	if !ph.Calls.Candidates.IsZero() {
		facts = append(facts, "candidates "+fmtCount(ph.Calls.Candidates))
	}
	if sr := ph.SeedRecords; sr != nil {
		facts = append(facts, "select "+termSafe(sr.Select))
	}
	if len(facts) > 0 {
		fmt.Fprintf(w, "               %s\n", strings.Join(facts, ", "))
	}
	writeCalls(w, "               ", ph.Calls)
	if rl := ph.RL; rl != nil && rl.Calibration != nil {
		for _, round := range rl.Calibration.Rounds {
			fmt.Fprintf(w, "    %-10s %s\n", "round", termSafe(round.Name))
			fmt.Fprintf(w, "                 after step %d, candidates %s, select %s\n", round.AfterStep, fmtCount(round.Calls.Candidates), termSafe(rl.Calibration.Select))
			writeCalls(w, "                 ", round.Calls)
		}
	}
	if ev := ph.Evolution; ev != nil && ev.Continual != nil {
		writeContinual(w, ev.Continual)
	}
}

// writeCalls renders a phase's (or a round's) real runs and LLM calls.
func writeCalls(w io.Writer, indent string, c plan.Calls) {
	if runs := sumCounts(c.RealRuns); !runs.IsZero() {
		fmt.Fprintf(w, "%sreal runs %s%s\n", indent, fmtCount(runs), perKey(c.RealRuns))
	}
	if len(c.LLM) > 0 {
		fmt.Fprintf(w, "%sllm calls%s\n", indent, perKey(c.LLM))
	}
}

// roundsOf is an RL phase's calibration rounds; none for another phase.
func roundsOf(ph *plan.Phase) []*plan.CalibrationRound {
	if ph.RL == nil || ph.RL.Calibration == nil {
		return nil
	}
	return ph.RL.Calibration.Rounds
}

// maxShownRounds bounds the rounds one line of a continual schedule lists.
const maxShownRounds = 16

// writeContinual renders a continual critic's schedule: for the tasks
// whose updates fall before the same rounds, one line each, the rounds
// before which each kind of update is made.
func writeContinual(w io.Writer, cc *plan.CriticContinual) {
	n := map[string]int{}
	for _, u := range cc.Updates {
		n[u.Kind]++
	}
	fmt.Fprintf(w, "    %-10s critic %s, scope %s: %d sdft and %d grpo updates\n", "continual", termSafe(cc.Training.Critic), termSafe(cc.Scope), n[plan.UpdateSDFT], n[plan.UpdateGRPO])
	var order []string
	tasks := map[string][]string{} // by schedule, the tasks that have it
	sched := map[plan.TaskRef]map[string][]int{}
	var taskOrder []plan.TaskRef
	for _, u := range cc.Updates {
		if sched[u.Task] == nil {
			sched[u.Task] = map[string][]int{}
			taskOrder = append(taskOrder, u.Task)
		}
		sched[u.Task][u.Kind] = append(sched[u.Task][u.Kind], u.Round)
	}
	for _, t := range taskOrder {
		var parts []string
		for _, kind := range []string{plan.UpdateSDFT, plan.UpdateGRPO} {
			if rs := sched[t][kind]; len(rs) > 0 {
				parts = append(parts, kind+" before rounds "+roundList(rs))
			}
		}
		key := strings.Join(parts, "; ")
		if _, ok := tasks[key]; !ok {
			order = append(order, key)
		}
		tasks[key] = append(tasks[key], termSafe(t.Env+"/"+t.Task))
	}
	for _, key := range order {
		ts := tasks[key]
		who := strings.Join(ts, ", ")
		if len(ts) > 3 {
			who = fmt.Sprintf("%d tasks, %s … %s", len(ts), ts[0], ts[len(ts)-1])
		}
		fmt.Fprintf(w, "                 %s: %s\n", who, key)
	}
}

// roundList is rounds (from 0) as a list, at most maxShownRounds of them
// and how many more.
func roundList(rounds []int) string {
	rs := slices.Clone(rounds)
	more := 0
	if len(rs) > maxShownRounds {
		more, rs = len(rs)-maxShownRounds, rs[:maxShownRounds]
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strconv.Itoa(r)
	}
	s := strings.Join(parts, " ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
