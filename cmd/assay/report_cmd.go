package main

import (
	"encoding/json"

	"assay/compiler/plan"
	"assay/internal/runcompare"
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"assay/runtime"
	"assay/runtime/report"
)

func init() { rootCmd.AddCommand(newReportCmd()) }

func newReportCmd() *cobra.Command {
	var dir, out string
	var asJSON bool
	c := &cobra.Command{
		Use:   "report ID [-o report.html] [--json]",
		Short: "Write a run's report: HTML with inline plots, or JSON",
		Long: `Report reads run ID's journal and writes a self-contained HTML page (inline
SVG plots, no scripts or external assets): reward per step, the world
model's predicted-vs-real gap at each calibration round, ranking accuracy,
budget burn, the best proposals with their real gains and the evaluation.

Without -o the page goes to .assay/runs/ID/report.html. With --json the same
figures are written as JSON (to standard output without -o).`,
		Example: `  assay report 20261130-021500-a1b2c3 -o report.html
  assay report --json 20261130-021500-a1b2c3 | jq .calibration`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			rep, err := runtime.LoadReport(dir, args[0])
			if err != nil {
				return userErrorf("%v", err)
			}
			// The estimate of the plan the run saved, beside what it did.
			if b, err := os.ReadFile(filepath.Join(runtime.RunDir(dir, args[0]), runtime.PlanFile)); err == nil {
				var p plan.Plan
				if json.Unmarshal(b, &p) == nil {
					rep.Compare = runcompare.Rows(&p, rep.Status.Variant, rep.Status.Totals)
				}
			}
			var b bytes.Buffer
			if asJSON {
				err = report.WriteJSON(&b, rep)
			} else {
				err = report.WriteHTML(&b, rep)
			}
			if err != nil {
				return err
			}
			if asJSON && out == "" {
				_, err := c.OutOrStdout().Write(b.Bytes())
				return err
			}
			if out == "" {
				out = filepath.Join(runtime.RunDir(dir, args[0]), "report.html")
			}
			if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
				return userErrorf("%v", err)
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s\n", out)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs")
	c.Flags().StringVarP(&out, "output", "o", "", "file to write")
	c.Flags().BoolVar(&asJSON, "json", false, "write the figures as JSON")
	return c
}
