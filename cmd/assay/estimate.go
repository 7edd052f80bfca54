package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"assay/compiler/estimate"
	"assay/compiler/plan"
	"assay/lang/diag"
)

func init() { rootCmd.AddCommand(newEstimateCmd()) }

var estimateWriters = map[string]func(io.Writer, *estimate.Report) error{
	"table":    estimate.WriteTable,
	"json":     estimate.WriteJSON,
	"markdown": estimate.WriteMarkdown,
}

func newEstimateCmd() *cobra.Command {
	var format string
	var flags *specFlags
	c := &cobra.Command{
		Use:   "estimate [--format table|json|markdown] SPEC",
		Short: "Price a spec: real runs, GPU-hours, dollars, LLM calls and wall time",
		Long: `Estimate compiles SPEC and prices its plan without running anything: real
runs and GPU-hours per environment (at each environment's run cost), dollars
(GPU-hours at the declared GPU prices plus LLM tokens at each role's price),
LLM calls per role, and wall-clock hours, by phase and in total. Figures
that depend on an assumption, such as a critic's routed fraction, are shown
as expected (low – high).

Then it checks the budget's hard caps: when the expected figure breaks a
cap, estimate prints the estimate, reports which cap is broken and by how
much, and exits 1; when only the high figure does, it warns.

Formats: table (default, for terminals), json (for scripts), markdown (for
reports and pull requests).

Exit codes: 0 within every cap, 1 invalid spec or a hard cap broken,
64 usage error.`,
		Example: `  assay estimate specs/lm2lm.hcl
  assay estimate --format markdown specs/critic-grpo.hcl > estimate.md
  assay estimate -var steps=40 --format json specs/lm2lm.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			write, ok := estimateWriters[format]
			if !ok {
				return &exitError{code: exitUsage, msg: fmt.Sprintf("--format must be table, json or markdown, not %q", format)}
			}
			p, src, err := mustCompile(c, args[0], flags)
			if err != nil {
				return err
			}
			r := estimate.Estimate(p)
			out := func(w io.Writer) error { return write(w, r) }
			if format != "json" {
				// JSON escapes control characters itself; text goes to terminals.
				if err := writeEscaped(c.OutOrStdout(), out); err != nil {
					return err
				}
			} else if err := out(c.OutOrStdout()); err != nil {
				return err
			}
			if len(p.Variants) == 0 {
				return nil
			}
			diags := r.CheckCaps(p.Variants[0].Budget)
			printDiags(c.ErrOrStderr(), diags, src)
			if diags.HasErrors() {
				return userErrorf("%s", capBroken)
			}
			return nil
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	c.Flags().StringVar(&format, "format", "table", "output format: table, json or markdown")
	return c
}

// capBroken is what estimate, validate and run say when an estimate breaks
// a hard cap.
const capBroken = "the estimate breaks a hard budget cap; lower the spec's cost or raise the cap in its budget block"

// capDiags checks a plan's estimate against its hard caps: one check that
// validate, estimate and run share, so run refuses before its first real
// run exactly what estimate refuses.
func capDiags(p *plan.Plan) diag.Diagnostics {
	if p == nil || len(p.Variants) == 0 {
		return nil
	}
	return estimate.Estimate(p).CheckCaps(p.Variants[0].Budget)
}
