package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/assay-lang/assay/plugins/builtin"
)

func main() {
	// The host starts this binary itself as each built-in plugin's process,
	// with hidden arguments; serve the plugin and never reach the CLI.
	builtin.Main()
	os.Exit(run(os.Args[1:]))
}

// run executes the command line args and returns the process exit code.
func run(args []string) int {
	rootCmd.SetArgs(normalizeArgs(args))
	err := rootCmd.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(os.Stderr, "assay: %s\n", escapeControls(ee.msg))
		}
		return ee.code
	}
	fmt.Fprintf(os.Stderr, "assay: %s\n", escapeControls(err.Error()))
	if !started {
		// Cobra failed before a command ran: an unknown command, a bad flag
		// or a wrong number of arguments.
		fmt.Fprintln(os.Stderr, "Run 'assay --help' for usage.")
		return exitUsage
	}
	return exitUser
}
