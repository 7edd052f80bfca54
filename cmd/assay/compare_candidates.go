package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/compare"
)

// writeCompareCandidates follows the table (or the Markdown) with each
// run's tasks (baseline, seed commit, best program and its checkout) and
// each source-mode run's built candidates: key, task, commit, diffstat,
// metric, gain and idea, the latest maxCandidateLines of a run; assay
// patch prints one's diff. Runs in knob mode have no candidates.
func writeCompareCandidates(w io.Writer, rows []*compare.Row, markdown bool) {
	for _, r := range rows {
		writeCompareTasks(w, r, markdown)
		cs := r.Candidates
		if len(cs) == 0 {
			continue
		}
		head := fmt.Sprintf("Candidates of run %s, built from the seed program (assay patch %s CANDIDATE prints one's diff)", r.ID, r.ID)
		if len(cs) > maxCandidateLines {
			head += fmt.Sprintf("; %d built, the last %d", len(cs), maxCandidateLines)
			cs = cs[len(cs)-maxCandidateLines:]
		}
		if markdown {
			fmt.Fprintf(w, "\n%s:\n\n| candidate | task | commit | files | + | − | metric | gain | idea |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n", head)
			for _, c := range cs {
				fmt.Fprintf(w, "| %s |\n", strings.Join(candidateCells(c, mdCell), " | "))
			}
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", head)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CANDIDATE\tTASK\tCOMMIT\tFILES\t+\t-\tMETRIC\tGAIN\tIDEA")
		for _, c := range cs {
			fmt.Fprintln(tw, strings.Join(candidateCells(c, termSafe), "\t"))
		}
		tw.Flush()
	}
}

// writeCompareTasks writes run r's tasks: baseline metric, seed commit,
// best gain and commit, and the command that checks the best out.
func writeCompareTasks(w io.Writer, r *compare.Row, markdown bool) {
	if len(r.Tasks) == 0 {
		return
	}
	head := fmt.Sprintf("Tasks of run %s", r.ID)
	cells := func(t runtime.TaskRecord, safe func(string) string) []string {
		out := []string{safe(t.Env + "/" + t.Task), figure(t.Baseline), safe(shortCommit(t.SeedCommit)), "", "", ""}
		if b := t.Best; b != nil {
			out[3], out[4], out[5] = figure(&b.Gain), safe(shortCommit(b.Commit)), safe(t.Checkout)
		}
		return out
	}
	if markdown {
		fmt.Fprintf(w, "\n%s:\n\n| task | baseline | seed commit | best gain | best commit | check it out |\n| --- | ---: | --- | ---: | --- | --- |\n", head)
		for _, t := range r.Tasks {
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells(t, mdCell), " | "))
		}
		return
	}
	fmt.Fprintf(w, "\n%s:\n", head)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tBASELINE\tSEED COMMIT\tBEST GAIN\tBEST COMMIT\tCHECK IT OUT")
	for _, t := range r.Tasks {
		fmt.Fprintln(tw, strings.Join(cells(t, termSafe), "\t"))
	}
	tw.Flush()
}

// shortCommit is a commit id cut to 12 characters.
func shortCommit(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// candidateCells are c's cells, each text cell made safe by safe.
func candidateCells(c runtime.Candidate, safe func(string) string) []string {
	idea := oneLine(c.Idea)
	if len(idea) > 80 {
		idea = idea[:77] + "..."
	}
	return []string{safe(c.Key), safe(c.Env + "/" + c.Task), safe(shortCommit(c.Commit)),
		fmt.Sprint(c.Files), fmt.Sprintf("+%d", c.Additions), fmt.Sprintf("-%d", c.Deletions), figure(c.Metric), figure(c.Gain), safe(idea)}
}
