package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/features/runcompare"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/runtime"
)

func init() { rootCmd.AddCommand(newEstimateCmd()) }

var estimateWriters = map[string]func(io.Writer, *estimate.Report) error{
	"table":    estimate.WriteTable,
	"json":     estimate.WriteJSON,
	"markdown": estimate.WriteMarkdown,
}

func newEstimateCmd() *cobra.Command {
	var format, fromRun, dir string
	var anyRun bool
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

A sweep's estimate lists each variant (its figures, and in JSON its own
plan hash, variants[].hash); its loops and policy updates have a row per
variant (VARIANT / LOOP). Every other figure, titled so, is the sum over
the variants: what running each variant once, one after another, as
run --all-variants does, costs.

Then it checks the budget's hard caps: when the expected figure breaks a
cap, estimate prints the estimate, reports which cap is broken and by how
much, and exits 1; when only the high figure does, it warns.

With --from-run ID, the assumptions (each critic's routed share, each
builder's build-failure rate, each environment's hours per real run, each
role's tokens and seconds per call) are what run ID (in --dir) measured,
each marked "run ID"; a figure the run has no data for keeps the spec's
value and says so. The run must be of SPEC's structure (the same loops,
critics, roles, environments and phases) unless --any-run is given. Then
the run's figures are shown beside what the learned estimate predicts for
it.

Formats: table (default, for terminals), json (for scripts), markdown (for
reports and pull requests).

Like validate, estimate refuses a role's first prompt that counts more
tokens than its tokens.in high prices (E_PROMPT_TOKENS): its plugin would
refuse it, so the run would stop at its first call.

Exit codes: 0 within every cap, 1 invalid spec, a hard cap broken or a
first prompt over its role's tokens.in, 64 usage error.`,
		Example: `  assay estimate specs/lm2lm.hcl
  assay estimate --format markdown specs/critic-grpo.hcl > estimate.md
  assay estimate -var steps=40 --format json specs/lm2lm.hcl
  assay estimate --from-run 20261130-021500-a1b2c3 specs/quickstart.hcl`,
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
			var learned *fromRunResult
			if fromRun != "" {
				if learned, err = learnFromRun(dir, fromRun, p, anyRun); err != nil {
					return err
				}
				var diags diag.Diagnostics
				p, diags, src = compileSpecWith(args[0], flags, compiler.Options{Learned: learned.learned})
				if diags.HasErrors() || p == nil {
					printDiags(c.ErrOrStderr(), diags, src)
					return silentFailure()
				}
			}
			r := estimate.Estimate(p)
			if learned != nil {
				r.FromRun = fromRun
				if learned.sameShape {
					for _, x := range runcompare.Predict(p, learned.status.Variant, learned.runPlan, learned.status.Totals, learned.timing) {
						r.Predicted = append(r.Predicted, &estimate.Prediction{Figure: x.Figure, Predicted: x.Predicted, Actual: x.Actual, Error: x.Error})
					}
				}
			}
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
			capsBroken := diags.HasErrors()
			diags = diags.Append(promptLimitDiags(args[0], p))
			printDiags(c.ErrOrStderr(), diags, src)
			if capsBroken {
				return userErrorf("%s", capBroken)
			}
			if diags.HasErrors() {
				return silentFailure()
			}
			return nil
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	c.Flags().StringVar(&format, "format", "table", "output format: table, json or markdown")
	c.Flags().StringVar(&fromRun, "from-run", "", "replace the assumptions with what run `ID` measured")
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs (with --from-run)")
	c.Flags().BoolVar(&anyRun, "any-run", false, "with --from-run: learn from a run whose plan is not of this spec's structure")
	return c
}

// fromRunResult is what estimate --from-run read of a run.
type fromRunResult struct {
	status    *runtime.Status
	runPlan   *plan.Plan
	timing    *runtime.Timing
	learned   map[string]compiler.Learned
	sameShape bool
}

// learnFromRun reads run id in dir and the figures it measured, for the
// spec compiled as p.
func learnFromRun(dir, id string, p *plan.Plan, anyRun bool) (*fromRunResult, error) {
	st, err := runtime.ReadStatus(dir, id)
	if err != nil {
		return nil, userErrorf("%v", err)
	}
	if st.Totals == nil || st.Totals.Measured == nil {
		return nil, userErrorf("run %s has no measured figures yet (state %s); learn from a run that has finished a phase", id, st.State)
	}
	b, err := os.ReadFile(filepath.Join(runtime.RunDir(dir, id), runtime.PlanFile))
	if err != nil {
		return nil, userErrorf("run %s: %v", id, err)
	}
	var rp plan.Plan
	if err := json.Unmarshal(b, &rp); err != nil {
		return nil, userErrorf("run %s: its plan cannot be read: %v", id, err)
	}
	tim, err := runtime.ReadTiming(dir, id)
	if err != nil {
		return nil, userErrorf("%v", err)
	}
	out := &fromRunResult{status: st, runPlan: &rp, timing: tim}
	if err := runcompare.SameShape(&rp, p, st.Variant); err != nil {
		if !anyRun {
			return nil, userErrorf("run %s is not a run of this spec: %v; its measurements name other things. Pass --any-run to learn from it anyway", id, err)
		}
	} else {
		out.sameShape = true
	}
	out.learned = runcompare.Learn(&rp, st.Variant, st.Totals, tim, id)
	if out.learned == nil {
		out.learned = map[string]compiler.Learned{}
	}
	// An assumption of the spec the run has no figure for (another
	// spec's run names other things) keeps its value and says so; prices
	// are not measured.
	for _, v := range p.Variants {
		for _, a := range v.Assumptions {
			if _, ok := out.learned[a.Name]; !ok && !strings.HasPrefix(a.Name, "prices.") {
				out.learned[a.Name] = compiler.Learned{Missing: "run " + id + " measured no such figure"}
			}
		}
	}
	return out, nil
}

// capBroken is what estimate, validate and run say when an estimate breaks
// a hard cap.
const capBroken = "the estimate breaks a hard budget cap; lower the spec's cost or raise the cap in its budget block"

// capDiags checks a plan's estimate against its hard caps: one check that
// validate, estimate and run share, so run refuses before its first real
// run exactly what estimate refuses.
// refuseUnready prints what a plan still needs before check or run uses
// it (a task suite's placeholders, its checkout) and fails when it needs
// anything: validate, estimate and plan need none of it.
func refuseUnready(c *cobra.Command, p *plan.Plan, src load.Sources) error {
	ds := compiler.Unready(p)
	if len(ds) == 0 {
		return nil
	}
	printDiags(c.ErrOrStderr(), ds, src)
	return userErrorf("the spec is not ready to run: supply what each error above names (validate, estimate and plan need none of it)")
}

func capDiags(p *plan.Plan) diag.Diagnostics {
	if p == nil || len(p.Variants) == 0 {
		return nil
	}
	return estimate.Estimate(p).CheckCaps(p.Variants[0].Budget)
}
