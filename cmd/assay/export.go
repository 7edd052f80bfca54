package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/pairs"
)

func init() { rootCmd.AddCommand(newExportCmd()) }

func newExportCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "export",
		Short: "Export data from runs (labelled parent/child pairs)",
		Long: `Export writes data read from run journals for use outside Assay. Its one
kind today is pairs: the verified parent/child pairs of runs, labelled, for
training and benchmarking a critic.`,
		Args: usageArgs(0, 0),
	}
	c.AddCommand(newExportPairsCmd())
	return c
}

func newExportPairsCmd() *cobra.Command {
	var dir, format, out, balanceBy string
	var holdout []string
	var fraction float64
	var seed int64
	var balance int
	var labelled bool
	c := &cobra.Command{
		Use:   "pairs RUN... [--format jsonl] [-o FILE]",
		Short: "Write the labelled parent/child pairs of runs as JSON lines",
		Long: `Export pairs reads the journals of runs RUN... (read-only, as status does)
and writes one JSON object per line for every verified parent/child pair:
a candidate made against a parent program (an evolution loop's child, a
parent-conditioned RL candidate) whose real run finished with a metric,
paired with its parent, whose metric is the task's baseline for the
reference configuration or else its own finished run. docs/pairs.md
describes every field.

Each pair has its 3-way label (improve, tie, lose: the child's metric
against its parent's, in the metric's direction) and, when its parent
keeps one, the critics paper's parent-specific 5-way label (BigWin,
MediumWin, SmallWin, Tie, Lose) from the relative improvements of all of
that parent's feasible executed children in the run; a parent with fewer
than 3 improving children keeps none (label5 is absent), as the paper
drops it. --labelled-only leaves such pairs out.

--holdout-tasks and --holdout-fraction mark the pairs of some tasks
"holdout" (split), the rest "train": the tasks named (ENV/TASK or TASK),
and tasks drawn by --seed until a share --holdout-fraction of all tasks
is held out (at least one, never every task). --balance N keeps at most N
pairs of each class of each split (by the 3-way label, or the 5-way one
with --balance-by 5way), drawn by --seed; a class with fewer is kept
whole and said on stderr. At most 256 runs and 1,048,576 pairs.`,
		Example: `  assay export pairs 20261130-021500-a1b2c3 -o pairs.jsonl
  assay export pairs RUN1 RUN2 --holdout-fraction 0.2 --seed 7 --balance 500`,
		Args: usageArgs(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "jsonl" {
				return userErrorf("--format %q: the one format is jsonl", format)
			}
			if len(holdout) > pairs.MaxRuns*64 {
				return userErrorf("--holdout-tasks names %d tasks; at most %d", len(holdout), pairs.MaxRuns*64)
			}
			ps, skipped, err := pairs.Read(dir, args)
			if err != nil {
				return userErrorf("%v", err)
			}
			if labelled {
				kept := ps[:0]
				for _, p := range ps {
					if p.Label5 != "" {
						kept = append(kept, p)
					}
				}
				ps = kept
			}
			if err := pairs.Split(ps, holdout, fraction, seed); err != nil {
				return userErrorf("%v", err)
			}
			if c.Flags().Changed("balance") {
				var short []string
				if ps, short, err = pairs.Balance(ps, balance, balanceBy, seed); err != nil {
					return userErrorf("%v", err)
				}
				for _, s := range short {
					fmt.Fprintf(c.ErrOrStderr(), "balance: %s\n", s)
				}
			}
			for _, s := range skipped.Skips() {
				fmt.Fprintf(c.ErrOrStderr(), "not paired: %s\n", s)
			}
			var b bytes.Buffer
			if err := pairs.WriteJSONL(&b, ps); err != nil {
				return err
			}
			if out == "" {
				_, err := c.OutOrStdout().Write(b.Bytes())
				return err
			}
			if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
				return userErrorf("%v", err)
			}
			fmt.Fprintf(c.ErrOrStderr(), "wrote %d pairs to %s\n", len(ps), out)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs")
	c.Flags().StringVar(&format, "format", "jsonl", "output format: jsonl")
	c.Flags().StringVarP(&out, "output", "o", "", "file to write (default: standard output)")
	c.Flags().StringSliceVar(&holdout, "holdout-tasks", nil, "tasks (ENV/TASK or TASK) whose pairs are held out")
	c.Flags().Float64Var(&fraction, "holdout-fraction", 0, "share of the tasks held out, drawn by --seed")
	c.Flags().Int64Var(&seed, "seed", 0, "seed of the holdout draw and of balancing")
	c.Flags().IntVar(&balance, "balance", 0, "keep at most N pairs per class and split")
	c.Flags().StringVar(&balanceBy, "balance-by", critic.Space3, "class for --balance: 3way or 5way")
	c.Flags().BoolVar(&labelled, "labelled-only", false, "leave out pairs without a 5-way label")
	return c
}
