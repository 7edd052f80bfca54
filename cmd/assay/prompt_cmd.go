package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/runtime"
)

func init() { rootCmd.AddCommand(newPromptCmd()) }

func newPromptCmd() *cobra.Command {
	var flags *specFlags
	var task, variant string
	var asJSON bool
	c := &cobra.Command{
		Use:   "prompt [--task T] [--variant NAME] [--json] SPEC ROLE",
		Short: "Print the messages a role is sent on its first call",
		Long: `Prompt compiles SPEC and prints the chat messages ROLE would be sent on a
representative first call about task T (default: the spec's first task),
rendered from the role's prompt templates in the plan (the spec's prompt
block, or Assay's defaults) exactly as a run renders them: no history or
records yet, the task's baseline as the parent, and as the proposal to
build, judge or summarise an example that sets the first knob to its first
other value. The knobs are what the environment's trainer plugin describes,
so prompt starts that plugin from the spec's lock file (or, when the spec
has none, from its plugins resolved as init would, writing no lock: prompt
writes nothing) and makes no LLM call.

Each message is printed under a "--- ROLE ---" line (system, user); with
--json, the messages as [{"role": ..., "content": ...}], as the openai
plugin sends them.

See docs/prompts.md for the templates' variables.`,
		Example: `  assay prompt specs/quickstart-critic.hcl critic
  assay prompt --task train-02 --json specs/lm2lm.hcl proposer`,
		Args: usageArgs(2, 2),
		RunE: func(c *cobra.Command, args []string) error {
			p, _, err := mustCompile(c, args[0], flags)
			if err != nil {
				return err
			}
			ctx := context.Background()
			lock, err := lockWith(ctx, args[0], p, c.ErrOrStderr(), true)
			if err != nil {
				return err
			}
			msgs, err := runtime.FirstCall(ctx, p, variant, args[1], task, hostLoader{lock: lock})
			if err != nil {
				return userErrorf("%v", err)
			}
			w := c.OutOrStdout()
			if asJSON {
				b, err := json.MarshalIndent(msgs, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(w, string(b))
				return nil
			}
			for _, m := range msgs {
				fmt.Fprintf(w, "--- %s ---\n%s\n", m.Role, strings.TrimSuffix(m.Content, "\n"))
			}
			return nil
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	c.Flags().StringVar(&task, "task", "", "the task the call is about (default: the spec's first task)")
	c.Flags().StringVar(&variant, "variant", "", "the sweep variant whose roles to use (default: the first)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the messages as JSON")
	return c
}
