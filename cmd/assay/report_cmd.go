package main

import (
	"encoding/json"

	"bytes"
	"fmt"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/features/runcompare"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/compare"
	"github.com/assay-lang/assay/runtime/report"
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
figures are written as JSON (to standard output without -o).

The page also names the run a replay replays, gives each task's baseline
metric, seed commit and best program with the command that checks it out
(git -C REPOSITORY checkout refs/assay/ID/best/TASK), lists every
candidate with the metric and gain its real run measured and, for one whose
run failed in its code and was repaired, each attempt; a figure outside
the estimate says whether it fell below the low or above the high.

ID may be a group (run --all-variants, run --seeds): the page then plots
each figure over the group's arms (each seed a dot, the mean a bar, the
95% interval on the mean a whisker), sets the group's runs side by side and
gives, per arm and figure, the mean, the standard deviation, the 95%
interval and the number of seeds, with each arm's difference from the
first, as assay compare does (see there). Without -o it goes to
.assay/runs/ID-report.html.`,
		Example: `  assay report 20261130-021500-a1b2c3 -o report.html
  assay report --json 20261130-021500-a1b2c3 | jq .calibration`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if !dirExists(runtime.RunDir(dir, args[0])) {
				if shown, err := writeGroupReport(c, dir, args[0], out, asJSON); shown || err != nil {
					return err
				}
			}
			rep, err := runtime.LoadReport(dir, args[0])
			if err != nil {
				return userErrorf("%v", err)
			}
			// The estimate of the plan the run saved, beside what it did.
			if b, err := os.ReadFile(filepath.Join(runtime.RunDir(dir, args[0]), runtime.PlanFile)); err == nil {
				var p plan.Plan
				if json.Unmarshal(b, &p) == nil {
					rep.Compare = runcompare.Rows(&p, rep.Status.Variant, rep.Status.Totals)
					rep.Predicted = predictRun(dir, args[0], rep.Status, &p)
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

// predictRun is what an estimate learned from run id's own measurements
// predicts for it, beside what it did, as estimate --from-run shows. It
// needs the run's spec: the one the run recorded, when it still compiles
// to the run's plan (the same file, variables at their defaults);
// otherwise nil.
func predictRun(dir, id string, st *runtime.Status, runPlan *plan.Plan) []runtime.Prediction {
	path := st.Meta["spec"]
	if path == "" || st.Totals == nil || st.Totals.Measured == nil {
		return nil
	}
	p, diags, _ := compileSpec(path, nil)
	if diags.HasErrors() || p == nil || p.Hash != runPlan.Hash {
		return nil
	}
	tim, err := runtime.ReadTiming(dir, id)
	if err != nil {
		return nil
	}
	learned := runcompare.Learn(runPlan, st.Variant, st.Totals, tim, id)
	lp, diags, _ := compileSpecWith(path, nil, compiler.Options{Learned: learned})
	if diags.HasErrors() || lp == nil {
		return nil
	}
	return runcompare.Predict(lp, st.Variant, runPlan, st.Totals, tim)
}

// writeGroupReport writes the report of group g; shown is false when g
// names no group.
func writeGroupReport(c *cobra.Command, dir, g, out string, asJSON bool) (shown bool, err error) {
	rows, err := compare.Load(dir, []string{g})
	if err != nil {
		return false, nil
	}
	gr := &report.Group{Group: g, Runs: rows, Arms: compare.Arms(rows)}
	if gr.Arms == nil {
		gr.Arms = []*compare.ArmFigure{}
	}
	var b bytes.Buffer
	if asJSON {
		err = report.WriteGroupJSON(&b, gr)
	} else {
		err = report.WriteGroupHTML(&b, gr)
	}
	if err != nil {
		return true, err
	}
	if asJSON && out == "" {
		_, err := c.OutOrStdout().Write(b.Bytes())
		return true, err
	}
	if out == "" {
		out = runtime.RunDir(dir, g) + "-report.html"
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return true, userErrorf("%v", err)
	}
	fmt.Fprintf(c.OutOrStdout(), "wrote %s\n", out)
	return true, nil
}
