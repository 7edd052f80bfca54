package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime"
)

func init() { rootCmd.AddCommand(newPatchCmd()) }

func newPatchCmd() *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "patch ID CANDIDATE",
		Short: "Print a source-mode candidate's patch: the diff from its parent to its commit",
		Long: `Patch prints the code change of candidate CANDIDATE of run ID (a key as
assay status and assay compare list them, such as policy/r0/s0/1): the
unified diff from the commit it was built on to its own commit, read with
git from the repository that holds them. Its idea and diffstat head the
output as a comment unless --diff-only is given; piped, the diff is the
bytes git wrote (it applies with git apply), while on a terminal control
characters are escaped.

The commits stay in the repository while the run's refs
(refs/assay/ID/...) keep them: after those refs are deleted and git
collects its garbage, a candidate's patch is gone.

Exit codes: 0 ok, 1 no such run or candidate, a run in knob mode, or git
failed, 64 usage error.`,
		Example: `  assay patch first policy/r0/s0/1
  assay patch --diff-only first policy/r0/s0/1 | git apply`,
		Args: usageArgs(2, 2),
		RunE: func(c *cobra.Command, args []string) error {
			diffOnly, _ := c.Flags().GetBool("diff-only")
			return printPatch(c.OutOrStdout(), dir, args[0], args[1], diffOnly)
		},
	}
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs")
	c.Flags().Bool("diff-only", false, "print the diff alone, without the idea and diffstat")
	return c
}

// printPatch writes candidate key of run id: its idea and diffstat (unless
// diffOnly), then its diff.
func printPatch(w io.Writer, dir, id, key string, diffOnly bool) error {
	st, err := runtime.ReadStatus(dir, id)
	if err != nil {
		return userErrorf("%v", err)
	}
	if len(st.Candidates) == 0 {
		return userErrorf("run %s built no candidate from a seed program (it is not in source mode, or built none)", id)
	}
	var c *runtime.Candidate
	for i := range st.Candidates {
		if st.Candidates[i].Key == key {
			c = &st.Candidates[i]
		}
	}
	if c == nil {
		return userErrorf("run %s has no candidate %s; assay status %s lists them", id, termSafe(key), id)
	}
	if c.Repo == "" {
		return userErrorf("run %s did not record the repository of its candidates (an older Assay made it): run git diff %s %s in it", id, c.Parent, c.Commit)
	}
	repo, err := gitrepo.Open(context.Background(), c.Repo)
	if err != nil {
		return userErrorf("candidate %s: %v", termSafe(key), err)
	}
	diff, err := repo.Diff(context.Background(), c.Parent, c.Commit)
	if err != nil {
		return userErrorf("candidate %s: %v (is %s still under the run's refs?)", termSafe(key), err, c.Commit)
	}
	out := diff
	if !diffOnly {
		out = fmt.Sprintf("# candidate %s of run %s, task %s/%s\n# idea: %s\n# commit %s on %s, %s\n%s",
			key, id, c.Env, c.Task, oneLine(c.Idea), c.Commit, c.Parent, c.DiffStat, diff)
	}
	if f, ok := w.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		out = escapeControls(out)
	}
	_, err = io.WriteString(w, out)
	return err
}

// oneLine is s on one line, its whitespace runs single spaces.
func oneLine(s string) string {
	return plugins.Printable(strings.Join(strings.Fields(s), " "))
}
