package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/examples"
)

func init() { rootCmd.AddCommand(newExampleCmd()) }

// exampleTime dates the example repository's commit, so every copy of one
// release's example is the same commit.
var exampleTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newExampleCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "example NAME DIR",
		Short: "Write an example as a git repository of its own",
		Long: `Example writes the example NAME, built into assay, to DIR (created if it
does not exist; refused if it exists and is not empty), makes DIR a git
repository and commits every file, authored by Assay, so a spec can name it
as a seed program. The examples:

  suite  the example task suite (examples/suite): a small Go MLP trainer,
         its four tasks in suite.json, and its editable files train.go and
         model.go (docs/task-suites.md)

Exit codes: 0 success, 1 DIR not empty or not writable, or git failed, 64
usage error.`,
		Example: `  assay example suite ./suite`,
		Args:    usageArgs(2, 2),
		RunE: func(c *cobra.Command, args []string) error {
			name, dir := args[0], args[1]
			if !slices.Contains(examples.Names, name) {
				return userErrorf("no example %q; the examples are %s", name, strings.Join(examples.Names, ", "))
			}
			if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
				return userErrorf("%s is not empty: give a new or empty directory", dir)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return userErrorf("%v", err)
			}
			wrote, err := examples.WriteExample(name, dir)
			if err != nil {
				return userErrorf("%v", err)
			}
			id, err := gitrepo.Init(c.Context(), dir, "assay example "+name+"\n", exampleTime)
			if err != nil {
				return userErrorf("%s: %v", dir, err)
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote example %s to %s: %d files, committed as %.12s\n", name, termSafe(dir), len(wrote), id)
			return nil
		},
	}
}
