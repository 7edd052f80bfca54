package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/lang/load"
)

func init() { rootCmd.AddCommand(newConvertCmd()) }

func newConvertCmd() *cobra.Command {
	var out string
	var flags *specFlags
	c := &cobra.Command{
		Use:   "convert IN -o OUT",
		Short: "Convert a spec between HCL, CUE, JSON and YAML",
		Long: `Convert reads IN (.hcl, .cue, a directory of .cue files, .json, .yaml or
.yml) and writes the same spec to OUT in the language its extension names
(.hcl, .cue, .json, .yaml or .yml). The
output is canonical and evaluated: locals, dynamic blocks, comprehensions
and uses of variables become their values, while variable declarations are
kept. A spec that extends another is written merged: one flat spec with
its base's blocks in it and no extends. The converted spec compiles to the
same plan (the same plan hash).

Exit codes: 0 success, 1 the input does not load or the output cannot be
written, 64 usage error.`,
		Example: `  assay convert specs/lm2lm.hcl -o lm2lm.cue
  assay convert specs/lm2lm.cue -o lm2lm.hcl
  assay convert specs/quickstart-critic.hcl -o quickstart-critic.json`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return &exitError{code: exitUsage, msg: "convert needs -o OUT (a .hcl or .cue file)"}
			}
			s, src, ds := load.Load(args[0], flags.options())
			printDiags(c.ErrOrStderr(), ds, src)
			if ds.HasErrors() || s == nil {
				return silentFailure()
			}
			b, wds := load.Write(s, out)
			if wds.HasErrors() {
				printDiags(c.ErrOrStderr(), wds, nil)
				return &exitError{code: exitUsage}
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return userErrorf("cannot write %s: %v", out, err)
			}
			fmt.Fprintf(c.ErrOrStderr(), "wrote %s\n", out)
			return nil
		},
	}
	flags = addSpecFlags(c)
	c.Flags().StringVarP(&out, "output", "o", "", "output file; its extension (.hcl, .cue, .json, .yaml or .yml) picks the language")
	return c
}
