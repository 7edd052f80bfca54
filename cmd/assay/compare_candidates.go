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
// source-mode run's built candidates: key, task, commit, diffstat and
// idea, the latest maxCandidateLines of a run; assay patch prints one's
// diff. Runs in knob mode have none and add nothing.
func writeCompareCandidates(w io.Writer, rows []*compare.Row, markdown bool) {
	for _, r := range rows {
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
			fmt.Fprintf(w, "\n%s:\n\n| candidate | task | commit | files | + | − | idea |\n| --- | --- | --- | ---: | ---: | ---: | --- |\n", head)
			for _, c := range cs {
				fmt.Fprintf(w, "| %s |\n", strings.Join(candidateCells(c, mdCell), " | "))
			}
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", head)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CANDIDATE\tTASK\tCOMMIT\tFILES\t+\t-\tIDEA")
		for _, c := range cs {
			fmt.Fprintln(tw, strings.Join(candidateCells(c, termSafe), "\t"))
		}
		tw.Flush()
	}
}

// candidateCells are c's cells, each text cell made safe by safe.
func candidateCells(c runtime.Candidate, safe func(string) string) []string {
	idea := oneLine(c.Idea)
	if len(idea) > 80 {
		idea = idea[:77] + "..."
	}
	commit := c.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return []string{safe(c.Key), safe(c.Env + "/" + c.Task), safe(commit),
		fmt.Sprint(c.Files), fmt.Sprintf("+%d", c.Additions), fmt.Sprintf("-%d", c.Deletions), safe(idea)}
}
