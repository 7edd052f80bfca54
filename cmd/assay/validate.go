package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/lang/diag"
)

func init() { rootCmd.AddCommand(newValidateCmd()) }

func newValidateCmd() *cobra.Command {
	var asJSON bool
	var flags *specFlags
	c := &cobra.Command{
		Use:   "validate [--json] SPEC",
		Short: "Check a spec and report every problem",
		Long: `Validate loads SPEC (a .hcl file, a .cue file, a directory of .cue files,
or a spec written as JSON or YAML: .json, .yaml, .yml)
and runs every check of the compiler without running anything: syntax,
unknown fields with "did you mean" hints, types, enums, references,
formulas, prices and budget arithmetic. It also renders every role's first
prompt on every task as a run does (the seed program's files, the knobs
its trainer describes when the spec has a lock) and refuses one over the
role's tokens.in high that its plugin would refuse (E_PROMPT_TOKENS),
without an LLM call; assay check tries the rest with one call per role.

Each problem is printed as file:line:col, severity, a stable code and a
summary, then the source line with a caret and what to do.

With --json, prints {"valid": bool, "diagnostics": [...]} to standard output
instead; every diagnostic has severity, code, summary, detail, range and
snippet.

Exit codes: 0 valid (warnings allowed), 1 invalid, 64 usage error.`,
		Example: `  assay validate specs/lm2lm.hcl
  assay validate -var steps=40 specs/lm2lm.hcl
  assay validate --json specs/critic-grpo.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			p, diags, src := compileSpec(args[0], flags)
			if !diags.HasErrors() && p != nil {
				// run refuses a spec whose estimate breaks a hard cap, so
				// validate does too; and a first prompt over tokens.in
				// stops a run at its first call.
				diags = diags.Append(capDiags(p), promptLimitDiags(args[0], p))
			}
			valid := !diags.HasErrors() && p != nil
			if asJSON {
				diags.Annotate(src)
				if diags == nil {
					diags = diag.Diagnostics{}
				}
				b, err := json.MarshalIndent(struct {
					Valid       bool             `json:"valid"`
					Diagnostics diag.Diagnostics `json:"diagnostics"`
				}{valid, diags}, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(c.OutOrStdout(), string(b))
			} else {
				printDiags(c.ErrOrStderr(), diags, src)
				if valid {
					fmt.Fprintf(c.OutOrStdout(), "%s: valid\n", args[0])
				}
			}
			if !valid {
				return silentFailure()
			}
			return nil
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}
