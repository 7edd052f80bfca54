package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/diff"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

func init() { rootCmd.AddCommand(newDiffCmd()) }

// Exit codes of assay diff, as terraform plan -detailed-exitcode.
const (
	exitDiffSame    = 0
	exitDiffChanged = 2
	exitDiffFail    = 3
)

func newDiffCmd() *cobra.Command {
	var format, gitRev string
	var verbose bool
	var failAbove, warnAbove []string
	var flags *specFlags
	c := &cobra.Command{
		Use:   "diff OLD NEW | diff --git REV PATH",
		Short: "Compare two specs by meaning: changed fields and how the estimate moved",
		Long: `Diff compares two specs by meaning, not by text: the fields that changed
(by path, e.g. calibration.after_steps: [16, 40, 64] -> [16, 40]; blocks
added and removed), and how the estimate moved: real runs, GPU-hours,
dollars, LLM calls, wall hours, calls per role and the steps each loop's
budget buys, as absolute and relative deltas of the expected value, with
low – high where they differ. OLD and NEW may be any mix of HCL and CUE.
Formatting, comments, the choice of front end and whether a spec is written
flat or with extends are not changes: specs are compared merged.

With --git REV, OLD is PATH as committed at REV and NEW is PATH in the
working tree; a base spec that OLD extends is read at REV too, relative
to OLD's folder there. PATH may be relative to the current folder or
absolute, and assay may run from any folder, inside the repository or
not. So a pull request's job can run
  assay diff --git origin/main specs/lm2lm.hcl --format markdown

--fail-above METRIC=LIMIT (repeatable) fails when an estimate figure moves
beyond LIMIT: usd=+10% (a rise of more than 10%), real_runs=+50 (more than
50 more runs), loops.policy.steps=-20% (a fall of more than 20%),
gpu_hours=1000 (either way). METRIC is real_runs, gpu_hours, usd, usd_gpu,
usd_llm, llm_calls, llm_tokens, wall_hours, roles.NAME.calls or
loops.NAME.steps. --warn-above marks the same without failing.

-var, -var-file and --set apply to both specs.

Formats: human (default; --verbose lists every field and figure), json,
markdown (for a pull-request comment).

Exit codes (as terraform plan -detailed-exitcode):
  0  no change
  1  error: a spec does not load or compile, git failed
  2  the specs differ
  3  a --fail-above threshold was crossed`,
		Example: `  assay diff specs/critic-grpo-verify-all.hcl specs/critic-grpo.hcl
  assay diff --git origin/main specs/lm2lm.hcl --format markdown --fail-above usd=+10%
  assay diff specs/lm2lm.hcl specs/lm2lm.cue   # no change: exit 0`,
		Args: func(c *cobra.Command, args []string) error {
			if gitRev != "" {
				return usageArgs(1, 1)(c, args)
			}
			return usageArgs(2, 2)(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			writers := map[string]func(io.Writer, *diff.Result) error{
				"human":    func(w io.Writer, r *diff.Result) error { return diff.WriteHuman(w, r, verbose) },
				"json":     diff.WriteJSON,
				"markdown": diff.WriteMarkdown,
			}
			write, ok := writers[format]
			if !ok {
				return &exitError{code: exitUsage, msg: fmt.Sprintf("--format must be human, json or markdown, not %q", format)}
			}
			opts := diff.Options{}
			for _, raw := range failAbove {
				t, err := diff.ParseThreshold(raw)
				if err != nil {
					return &exitError{code: exitUsage, msg: "--fail-above: " + err.Error()}
				}
				opts.FailAbove = append(opts.FailAbove, t)
			}
			for _, raw := range warnAbove {
				t, err := diff.ParseThreshold(raw)
				if err != nil {
					return &exitError{code: exitUsage, msg: "--warn-above: " + err.Error()}
				}
				opts.WarnAbove = append(opts.WarnAbove, t)
			}
			oldPath, newPath := "", ""
			oldOpts := flags.options()
			var tree *gitTree
			if gitRev != "" {
				newPath = args[0]
				var err error
				tree, err = openGitTree(gitRev, newPath)
				if err != nil {
					return userErrorf("%v", err)
				}
				defer tree.close()
				oldPath = tree.spec
				oldOpts.Fetch = tree.fetch
				opts.OldName, opts.NewName = gitRev+":"+newPath, newPath
			} else {
				oldPath, newPath = args[0], args[1]
				opts.OldName, opts.NewName = oldPath, newPath
			}
			old, osrc, ods := load.Load(oldPath, oldOpts)
			new, nsrc, nds := load.Load(newPath, flags.options())
			for k, v := range nsrc {
				osrc[k] = v
			}
			copts, sds := flags.compileOptions(osrc)
			opts.Compile = copts
			ds := diag.Diagnostics{}.Append(ods, nds, sds)
			if ds.HasErrors() {
				tree.relabel(ds, osrc)
				printDiags(c.ErrOrStderr(), ds, osrc)
				return silentFailure()
			}
			r, cds := diff.Diff(old, new, opts)
			ds = ds.Append(cds)
			tree.relabel(ds, osrc)
			printDiags(c.ErrOrStderr(), ds, osrc)
			if cds.HasErrors() || r == nil {
				return silentFailure()
			}
			if err := write(c.OutOrStdout(), r); err != nil {
				return err
			}
			switch {
			case len(r.Failed) > 0:
				return &exitError{code: exitDiffFail, msg: fmt.Sprintf("%d --fail-above threshold(s) crossed", len(r.Failed))}
			case r.Changed:
				return &exitError{code: exitDiffChanged}
			}
			return nil
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	c.Flags().StringVar(&format, "format", "human", "output format: human, json or markdown")
	c.Flags().StringVar(&gitRev, "git", "", "compare PATH at git revision REV (old) with PATH in the working tree (new)")
	c.Flags().BoolVar(&verbose, "verbose", false, "list every changed field with values and every figure")
	c.Flags().StringArrayVar(&failAbove, "fail-above", nil, "exit 3 when a figure moves beyond METRIC=LIMIT, e.g. usd=+10% (repeatable)")
	c.Flags().StringArrayVar(&warnAbove, "warn-above", nil, "mark a figure that moves beyond METRIC=LIMIT (repeatable)")
	return c
}
