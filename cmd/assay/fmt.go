package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/base/textdiff"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/load"
)

func init() { rootCmd.AddCommand(newFmtCmd()) }

func newFmtCmd() *cobra.Command {
	var check, diff, write bool
	c := &cobra.Command{
		Use:   "fmt [-check] [-diff] [-w] FILES...",
		Short: "Rewrite HCL specs in canonical layout",
		Long: `Fmt puts HCL spec files in Assay's canonical layout: aligned equals signs,
two-space indentation, single blank lines, one final newline. Formatting is
idempotent, and it never changes what a spec means: its plan hash stays the
same. Only the files given are formatted: the base spec that a file extends
is left as it is.

Without flags the formatted text is printed to standard output (FILES must
then be a single file). With -w each file is rewritten in place. With
-check nothing is written: the names of files that are not formatted are
listed and the exit code is 1 when there is any. With -diff a unified diff
of the changes is printed. -check and -diff may be combined; -w may be
combined with -diff.

Exit codes: 0 formatted (or all files already formatted with -check),
1 a file has syntax errors or is not formatted (-check), 64 usage error.`,
		Example: `  assay fmt -w specs/*.hcl
  assay fmt -check specs/
  assay fmt -diff specs/lm2lm.hcl`,
		Args: usageArgs(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			files, err := hclFiles(args)
			if err != nil {
				return err
			}
			if !check && !diff && !write && len(files) != 1 {
				return &exitError{code: exitUsage, msg: "printing formatted text takes exactly one file; use -w, -check or -diff for several"}
			}
			out, errOut := c.OutOrStdout(), c.ErrOrStderr()
			failed, unformatted := false, false
			for _, f := range files {
				src, err := load.ReadSource(f)
				if err != nil {
					printDiags(errOut, diag.Diagnostics{diag.Errorf("E_FILE_READ", diag.Range{Filename: f}, "cannot read: %v", err)}, nil)
					failed = true
					continue
				}
				res, diags := hcl.Format(f, src)
				if diags.HasErrors() {
					printDiags(errOut, diags, load.Sources{f: src})
					failed = true
					continue
				}
				changed := string(res) != string(src)
				if !check && !diff && !write {
					_, _ = out.Write(res)
					continue
				}
				if !changed {
					continue
				}
				unformatted = true
				if check {
					fmt.Fprintln(out, f)
				}
				if diff {
					fmt.Fprint(out, textdiff.Unified(f+".orig", f, string(src), string(res)))
				}
				if write {
					if err := writeFileKeepMode(f, res); err != nil {
						return userErrorf("cannot write %s: %v", f, err)
					}
				}
			}
			if failed || (check && unformatted) {
				return silentFailure()
			}
			return nil
		},
	}
	c.Flags().BoolVar(&check, "check", false, "list files that are not formatted and exit 1 if any; write nothing")
	c.Flags().BoolVar(&diff, "diff", false, "print a unified diff of the changes")
	c.Flags().BoolVarP(&write, "write", "w", false, "rewrite files in place")
	return c
}

// hclFiles expands directories to the .hcl files directly inside them.
func hclFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, userErrorf("cannot read %s: %v", a, unwrapPath(err))
		}
		if !info.IsDir() {
			if !strings.EqualFold(filepath.Ext(a), ".hcl") {
				return nil, userErrorf("%s is not an HCL spec (*.hcl); fmt formats HCL only", a)
			}
			files = append(files, a)
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(a, "*.hcl"))
		files = append(files, matches...)
	}
	return files, nil
}

func writeFileKeepMode(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	// Write a sibling and rename, so an interrupted write never truncates a spec.
	tmp := path + ".assay-fmt.tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
