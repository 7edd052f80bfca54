package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/lsp"
)

func init() { rootCmd.AddCommand(newLSPCmd()) }

func newLSPCmd() *cobra.Command {
	var stdio bool
	c := &cobra.Command{
		Use:   "lsp [--stdio]",
		Short: "Serve the Language Server Protocol for .hcl and .cue specs",
		Long: `Lsp runs a language server for Assay specs on standard input and output,
for editors (see docs/editors.md; editors/vscode is a VS Code extension
that starts it). It reports the diagnostics of assay validate as you type,
unsaved base specs included; shows a field's documentation, type, default
and allowed values on hover, and a referenced block or a loop's estimate;
completes block types, field names, allowed values and references; goes to
the definition of a reference or an extends base and finds references;
formats HCL as assay fmt does (CUE in CUE's layout); and shows the saved
spec's estimated total as a code lens.

--stdio is accepted for editors that pass it; standard input and output
are the only transport.

Exit codes: 0 when the editor sends shutdown then exit, or closes the
server's input; 1 on exit without shutdown, or a stream that fails.`,
		Example: `  assay lsp`,
		Args:    usageArgs(0, 0),
		RunE: func(c *cobra.Command, _ []string) error {
			return lsp.Serve(c.Context(), stdioPipe{c.InOrStdin(), c.OutOrStdout()}, lsp.Options{Version: buildVersion()})
		},
	}
	c.Flags().BoolVar(&stdio, "stdio", true, "talk over standard input and output (the default and only transport)")
	return c
}

// stdioPipe joins standard input and output into the stream the server
// speaks over. Closing it closes standard input, which ends the read.
type stdioPipe struct {
	io.Reader
	io.Writer
}

func (p stdioPipe) Close() error {
	if f, ok := p.Reader.(*os.File); ok {
		return f.Close()
	}
	if c, ok := p.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
