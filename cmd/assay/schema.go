package main

import (
	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/lang/spec/jsonschema"
)

func init() { rootCmd.AddCommand(newSchemaCmd()) }

func newSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema (draft 2020-12) of Assay specs",
		Long: `Schema prints a JSON Schema (draft 2020-12) of the spec model, generated
from the same description as the decoders, the CUE schema and the language
reference. It describes a spec as JSON: single blocks are objects, labelled
blocks are objects keyed by label, references are "kind.name" strings.
Editors can use it to complete and check specs written as JSON or YAML,
which every assay command reads as it reads HCL and CUE (spec.json,
spec.yaml or spec.yml; assay convert writes them).

Exit codes: 0 success, 64 usage error.`,
		Example: `  assay schema > assay.schema.json`,
		Args:    usageArgs(0, 0),
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := c.OutOrStdout().Write(jsonschema.Generate())
			return err
		},
	}
}
