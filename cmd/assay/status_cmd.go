package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"assay/runtime"
)

func init() { rootCmd.AddCommand(newStatusCmd()) }

func newStatusCmd() *cobra.Command {
	var dir string
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [ID] [--json]",
		Short: "Show a run's state, or list runs",
		Long: `Status reads run ID's journal and shows its state (running, finished,
failed, or interrupted when its process is gone), the current phase, real
runs reserved against the budget (finished, failed, in flight), GPU-hours
and dollars. Without ID it lists every run, newest first.

With --json it prints the same as JSON: an object with at least "state" and
"real_runs" for one run, an array of them for the list.`,
		Example: `  assay status
  assay status --json 20261130-021500-a1b2c3`,
		Args: usageArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			out := c.OutOrStdout()
			if len(args) == 0 {
				list, err := runtime.ListRuns(dir)
				if err != nil {
					return userErrorf("%v", err)
				}
				if asJSON {
					if list == nil {
						list = []*runtime.Status{}
					}
					return writeJSON(out, list)
				}
				if len(list) == 0 {
					fmt.Fprintf(out, "no runs in %s\n", dir)
					return nil
				}
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tPLAN\tSTATE\tPHASE\tREAL RUNS\tGPU-HOURS\tUPDATED")
				for _, s := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n", s.ID, s.Plan, s.State, s.Phase, runsOf(s), s.GPUHours, s.Updated.Format("2006-01-02 15:04:05"))
				}
				return tw.Flush()
			}
			st, err := runtime.ReadStatus(dir, args[0])
			if err != nil {
				return userErrorf("%v", err)
			}
			if asJSON {
				return writeJSON(out, st)
			}
			writeStatus(out, st)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func runsOf(s *runtime.Status) string {
	if s.Budget.RealRuns > 0 {
		return fmt.Sprintf("%d/%d", s.RealRuns, s.Budget.RealRuns)
	}
	return fmt.Sprintf("%d", s.RealRuns)
}

func writeStatus(w io.Writer, s *runtime.Status) {
	fmt.Fprintf(w, "run        %s\nplan       %s (%s, seed %d)\nstate      %s\n", s.ID, s.Plan, s.Variant, s.Seed, s.State)
	if s.Reason != "" {
		fmt.Fprintf(w, "reason     %s\n", s.Reason)
	}
	if s.Phase != "" {
		fmt.Fprintf(w, "phase      %s\n", s.Phase)
	}
	fmt.Fprintf(w, "real runs  %s (%d finished, %d failed, %d in flight)\n", runsOf(s), s.Finished, s.Failed, s.InFlight)
	fmt.Fprintf(w, "GPU-hours  %.2f\nrun $      %.2f\n", s.GPUHours, s.RunUSD)
	if t := s.Totals; t != nil {
		fmt.Fprintf(w, "total $    %.2f (LLM %.2f, %d calls)\nsteps      %d (%d candidates, %d policy updates)\nbest gain  %.4g\n",
			t.USD, t.LLMUSD, t.LLMCalls, t.Steps, t.Candidates, t.PolicyUpdates, t.BestGain)
	}
	if s.State == runtime.StateInterrupted {
		fmt.Fprintf(w, "continue   assay resume %s\n", s.ID)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
