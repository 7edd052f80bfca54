package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

func init() { rootCmd.AddCommand(newPlanCmd()) }

func newPlanCmd() *cobra.Command {
	var asJSON bool
	var out string
	var flags *specFlags
	c := &cobra.Command{
		Use:   "plan [--json] [-out FILE] SPEC",
		Short: "Show the execution plan of a spec: phases and call counts",
		Long: `Plan compiles SPEC and prints its execution plan: for each variant (one
without a sweep), the phases in order (seed records, RL loops with their
calibration rounds, evolution loops, evaluation) with steps, candidates,
real runs and LLM calls per role. Counts that depend on an assumption,
such as a critic's routed fraction, are shown as expected (low – high).

With --json the plan itself is printed: the data the runtime executes, with
format_version and a hash that depends only on the spec's meaning (it does
not change when the spec is reformatted or comments change).

With -out FILE the plan is also saved, for assay run FILE to execute
exactly as it was shown. The saved plan pins what it was made from: the
SHA-256 of every file the spec read (itself, the specs it extends,
-var-file files), the -var and -var-file settings, the checksum of each
plugin's executable on this platform (the assay binary itself for a
built-in), and the assay version. assay run FILE refuses it, naming each
change, when a spec file or a plugin changed since, and compiles the
pinned spec again with the recorded settings: a plan that is not what it
compiles to (one edited by hand) is refused, naming where it first
differs; save it again then. Saving resolves the spec's plugins as run
does: it writes the spec's lock when there is none, and refuses to save
when a plugin's executable is not the one the lock records.

--set PATH=VALUE (repeatable, here and in validate, estimate, diff and run)
sets a field, named as a sweep axis names it (critic.screen.votes=9,
loop.policy.steps=40), or one entry of a map field, keeping the others
(prices.gpu_hourly.CPU=1.5, plugin.tinylm.config.steps=300). VALUE is
typed by the field: a number, true or false, text or a formula (a
double-quoted string is unquoted), a reference kind.name, a list [8, 16]
or a map {H100 = 2.5, CPU = 1.5}; a list or map replaces the field's
value. Inside [ ] and { } text is quoted. An entry of a built-in plugin's
config is typed by its schema; of another plugin's, a number, true or
false, or text. PATH=V1,V2,... (commas outside quotes and brackets) makes
the field a sweep axis with those values, a variant each; run them with
run --all-variants. Quote a text with a comma: description="a, b". A bad
path or value is reported at its place in the --set arguments
(--set:N:COL, the N-th --set, the column inside the value). The plan
records the settings under "overrides" and its hash covers them.

A spec with errors exits 1 after its diagnostics. When every error leaves
the spec sound (a budget its fixed runs exceed, a field set where it takes
no effect), the summary still shows what it compiled to, with no hash:
such a plan is never printed as JSON, saved or run.

Exit codes: 0 ok, 1 invalid spec, 64 usage error.`,
		Example: `  assay plan specs/lm2lm.hcl
  assay plan --json specs/critic-grpo.hcl | jq .hash
  assay plan -out quickstart.plan specs/quickstart.hcl && assay run quickstart.plan
  assay plan --set critic.screen.votes=9 --set loop.policy.steps=40 specs/critic-grpo.hcl
  assay plan --set 'calibration.after_steps=[8, 16]' --set plugin.tinylm.config.steps=300 specs/quickstart.hcl
  assay plan --set loop.policy.steps=24,32 specs/quickstart.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			p, diags, src := compilePartial(args[0], flags)
			printDiags(c.ErrOrStderr(), diags, src)
			if diags.HasErrors() || p == nil {
				if p != nil && !asJSON {
					// What compiled, as Terraform shows an errored
					// plan: never saved, never run.
					writePlanSummary(c.OutOrStdout(), p)
				}
				return silentFailure()
			}
			if out != "" {
				if err := savePlan(c.Context(), out, args[0], src, p, flags, c.ErrOrStderr()); err != nil {
					return err
				}
				defer fmt.Fprintf(c.ErrOrStderr(), "assay: saved the plan to %s; run exactly this plan with: assay run %s\n", termSafe(out), termSafe(out))
			}
			if asJSON {
				b, err := json.MarshalIndent(p, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(c.OutOrStdout(), string(b))
				return nil
			}
			writePlanSummary(c.OutOrStdout(), p)
			return nil
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	c.Flags().BoolVar(&asJSON, "json", false, "print the plan as JSON")
	c.Flags().StringVar(&out, "out", "", "also save the plan to `FILE`, for assay run FILE")
	return c
}

// compilePartial compiles the spec at path as compileSpec does, but when
// it has errors returns what compiled too (compiler.CompilePartial), for
// showing; such a plan has no hash and is never saved or run.
func compilePartial(path string, f *specFlags) (*plan.Plan, diag.Diagnostics, load.Sources) {
	if f == nil {
		f = &specFlags{}
	}
	s, src, diags := load.Load(path, f.options())
	opts, sds := f.compileOptions(src)
	if diags.HasErrors() || s == nil {
		return nil, diags.Append(sds), src
	}
	p, cdiags := compiler.CompilePartial(s, opts)
	diags = diags.Append(sds, cdiags)
	diags.Sort()
	if sds.HasErrors() {
		p = nil
	}
	return p, diags, src
}

// writePlanSummary renders a plan for people.
func writePlanSummary(w io.Writer, p *plan.Plan) {
	name := termSafe(p.Name)
	if name == "" {
		name = "(unnamed)"
	}
	hash := p.Hash
	if hash == "" {
		hash = "(no hash: the spec has errors, so this plan shows what compiled and cannot run)"
	}
	fmt.Fprintf(w, "Plan %s (format %s)\n%s\n", name, p.FormatVersion, hash)
	if len(p.Overrides) > 0 {
		fmt.Fprintf(w, "set        %s\n", termSafe(overridesText(p.Overrides)))
	}
	for _, v := range p.Variants {
		fmt.Fprintf(w, "\nVariant %s\n", termSafe(v.Name))
		if len(p.Variants) > 1 {
			// A run of this variant records this hash, not the sweep's.
			fmt.Fprintf(w, "  %-12s %s\n", "hash", p.VariantHash(v.Name))
		}
		for _, ph := range v.Phases {
			writePhase(w, ph)
		}
		runs, llm := plan.Count{}, map[string]plan.Count{}
		add := func(c plan.Calls) {
			runs = runs.Add(sumCounts(c.RealRuns))
			for r, n := range c.LLM {
				llm[r] = llm[r].Add(n)
			}
		}
		for _, ph := range v.Phases {
			add(ph.Calls)
			for _, round := range roundsOf(ph) {
				add(round.Calls)
			}
		}
		fmt.Fprintf(w, "  total        real runs %s, llm calls%s\n", fmtCount(runs), perKey(llm))
	}
}

func sumCounts(m map[string]plan.Count) plan.Count {
	var c plan.Count
	for _, n := range m {
		c = c.Add(n)
	}
	return c
}

// perKey renders " a 1, b 2" in key order.
func perKey(m map[string]plan.Count) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i == 0 {
			b.WriteString(":")
		} else {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s %s", termSafe(k), fmtCount(m[k]))
	}
	return b.String()
}

// fmtCount renders a count as the estimate does: "107 (39 – 107)", or
// "24,576" when exact.
func fmtCount(c plan.Count) string {
	e := estimate.FormatNumber(c.Expected)
	lo, hi := estimate.FormatNumber(c.Low), estimate.FormatNumber(c.High)
	if lo == e && hi == e {
		return e
	}
	return fmt.Sprintf("%s (%s – %s)", e, lo, hi)
}
