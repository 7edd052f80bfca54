package main

import (
	"fmt"
	"io"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime"
)

// writeReplay names the run a replay replays.
func writeReplay(w io.Writer, r *runtime.ReplayOf) {
	if r == nil {
		return
	}
	what := "its LLM answers; real runs trained again"
	if r.Runs {
		what = "its LLM answers and its real runs' results"
	}
	fmt.Fprintf(w, "replay of  %s (%s)\n", termSafe(r.Run), what)
}

// writeTasks gives each task's baseline metric and, in source mode, its
// best program with the command that checks it out.
func writeTasks(w io.Writer, ts []runtime.TaskRecord) {
	for _, t := range ts {
		line := "task       " + termSafe(t.Env+"/"+t.Task)
		if t.Baseline != nil {
			line += fmt.Sprintf(" baseline %.6g", *t.Baseline)
			if t.BaselineRun != "" {
				line += " (run " + termSafe(t.BaselineRun) + ")"
			} else {
				line += " (declared)"
			}
		}
		if b := t.Best; b != nil {
			line += fmt.Sprintf("  best %+.4g at %.12s: %s", b.Gain, b.Commit, termSafe(t.Checkout))
		}
		fmt.Fprintln(w, line)
	}
}

// measuredText is what a candidate's real run measured, "" when none
// did.
func measuredText(c runtime.Candidate) string {
	switch {
	case c.Status == "":
		return ""
	case c.Metric == nil:
		return "  (run " + c.Status + ")"
	case c.Gain == nil:
		return fmt.Sprintf("  (metric %.6g)", *c.Metric)
	}
	return fmt.Sprintf("  (metric %.6g, gain %+.4g)", *c.Metric, *c.Gain)
}

// attemptOutcome is how an attempt's run ended.
func attemptOutcome(a runtime.Attempt) string {
	s := a.Status
	if s == "" {
		s = "no result yet"
	}
	if a.Metric != nil {
		s += fmt.Sprintf(", metric %.6g", *a.Metric)
	}
	if a.Reason != "" {
		s += ": " + plugins.Printable(a.Reason)
	}
	return s
}
