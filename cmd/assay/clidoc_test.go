package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var updateDoc = flag.Bool("update-doc", false, "rewrite docs/cli.md from the commands' help")

// TestCLIDoc keeps docs/cli.md equal to the commands' own help text, so the
// document cannot drift from the tool. Regenerate it with
//
//	go test ./cmd/assay -run TestCLIDoc -update-doc
func TestCLIDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "cli.md")
	want := renderCLIDoc(rootCmd)
	if *updateDoc {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run: go test ./cmd/assay -run TestCLIDoc -update-doc", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/cli.md is stale; run: go test ./cmd/assay -run TestCLIDoc -update-doc")
	}
}

func renderCLIDoc(root *cobra.Command) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# The assay command\n\n")
	w("<!-- Generated from the commands' help by `go test ./cmd/assay -run TestCLIDoc -update-doc`; do not edit by hand. -->\n\n")
	w("%s\n\n", root.Short)
	w("```\n%s\n```\n\n", strings.TrimSpace(root.Long))
	w("Global flags:\n\n```\n%s```\n\n", root.PersistentFlags().FlagUsages())
	var cmds []*cobra.Command
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		cmds = append(cmds, c)
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	w("Commands:\n\n")
	for _, c := range cmds {
		w("- [`assay %s`](#assay-%s): %s\n", c.Name(), c.Name(), c.Short)
	}
	w("\n")
	for _, c := range cmds {
		writeCommandDoc(&b, c, "## ")
	}
	writeCompletionDoc(&b, root)
	return b.Bytes()
}

// writeCompletionDoc documents shell completion from cobra's own completion
// command, which assay has (assay completion SHELL).
func writeCompletionDoc(b *bytes.Buffer, root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	var comp *cobra.Command
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			comp = c
		}
	}
	if comp == nil {
		return
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## Shell completion\n\n")
	w("`assay completion SHELL` prints a completion script for bash, zsh, fish or\n")
	w("PowerShell: commands, flags, and file names for SPEC arguments; after\n")
	w("`--set` it offers the settable field paths (`critic.screen.votes=`), with\n")
	w("the labels of the spec named before it on the command line. Load it once\n")
	w("in the current shell, or install it for every new shell, as below.\n\n")
	w("```\n%s\n```\n\n", comp.UseLine())
	subs := comp.Commands()
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	for _, s := range subs {
		if s.Hidden || s.Name() == "help" {
			continue
		}
		w("### %s\n\n%s\n\n", s.Name(), strings.TrimSpace(s.Long))
	}
}

func writeCommandDoc(b *bytes.Buffer, c *cobra.Command, level string) {
	fmt.Fprintf(b, "%sassay %s\n\n", level, strings.TrimPrefix(c.CommandPath(), "assay "))
	fmt.Fprintf(b, "%s\n\n", c.Short)
	fmt.Fprintf(b, "```\n%s\n```\n\n", c.UseLine())
	if c.Long != "" {
		fmt.Fprintf(b, "%s\n\n", strings.TrimSpace(c.Long))
	}
	if c.Example != "" {
		fmt.Fprintf(b, "Examples:\n\n```\n%s\n```\n\n", strings.TrimRight(c.Example, "\n"))
	}
	if fl := c.LocalFlags().FlagUsages(); fl != "" {
		fmt.Fprintf(b, "Flags:\n\n```\n%s```\n\n", fl)
	}
	subs := c.Commands()
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	for _, s := range subs {
		if !s.Hidden && s.Name() != "help" {
			writeCommandDoc(b, s, level+"#")
		}
	}
}
