package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/runtime"
)

func init() { rootCmd.AddCommand(newCriteriaCmd()) }

func newCriteriaCmd() *cobra.Command {
	var dir, out string
	c := &cobra.Command{
		Use:   "criteria RUN [--out DIR]",
		Short: "Show or keep the task criteria a run's criteria roles gave",
		Long: `Criteria reads run RUN's journal (read-only, as status does) and lists the
task understanding and criteria each critic's criteria_role gave it, per
critic, environment and task: whether the run generated them (a call of
the role) or reused them from the runs directory's criteria store
(docs/prompts.md), and the text's first line.

--out DIR writes them as criteria directories: DIR/CRITIC/TASK.md, each
directory usable as that critic's criteria_dir, so a spec keeps them
beside it (and in its lock) rather than in the store. A file that exists
with other text is refused, never overwritten.`,
		Example: `  assay criteria 20261130-021500-a1b2c3
  assay criteria 20261130-021500-a1b2c3 --out criteria`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			cs, err := runtime.RunCriteria(dir, args[0])
			if err != nil {
				return userErrorf("%v", err)
			}
			if out != "" {
				files, err := runtime.WriteCriteriaDirs(out, cs)
				if err != nil {
					return userErrorf("%v", err)
				}
				fmt.Fprintf(c.ErrOrStderr(), "wrote %d criteria files under %s\n", len(files), out)
				return nil
			}
			if len(cs) == 0 {
				fmt.Fprintf(c.OutOrStdout(), "run %s: no critic's criteria_role gave criteria\n", args[0])
				return nil
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "CRITIC\tENV\tTASK\tROLE\tFROM\tCRITERIA")
			for _, tc := range cs {
				first := firstLine(tc.Text, 60)
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", tc.Critic, tc.Env, tc.Task, tc.Role, tc.From, first)
			}
			return w.Flush()
		},
	}
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs")
	c.Flags().StringVar(&out, "out", "", "write DIR/CRITIC/TASK.md criteria directories")
	return c
}

// firstLine is text's first line, at most n runes, its control characters
// (an LLM's text may hold terminal escapes) shown as '?'.
func firstLine(text string, n int) string {
	first, _, _ := strings.Cut(text, "\n")
	r := []rune(strings.Map(func(c rune) rune {
		if unicode.IsControl(c) {
			return '?'
		}
		return c
	}, first))
	if len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return string(r)
}
