package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/openai"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime"
)

func init() { rootCmd.AddCommand(newCheckCmd()) }

func newCheckCmd() *cobra.Command {
	var flags *specFlags
	var variant string
	var asJSON bool
	c := &cobra.Command{
		Use:   "check [--variant NAME] [--json] SPEC",
		Short: "Try a spec's builds, evaluations and roles once, before any budget is spent",
		Long: `Check is a canary: it tries, once each, what a run of SPEC stands on,
through the code a run uses, and says what to change before a run spends
its budget on it. It prints first what it spends at most, then:

  - starts every plugin, as a run does (an LLM server that does not
    answer stops the check here);
  - builds each seed program once, in source mode: its source's build
    command in a worktree of the seed commit;
  - runs each task's baseline once through its trainer plugin, so the
    metric is read as a run reads it (metric_regex, metric_file);
  - sends one call per role to its plugin (and one per critic whose
    criteria_role writes its criteria), each asked once (no reask), and
    reads the answer as a run does: a proposer's proposals, a builder's
    patch applied to the seed program, a critic's verdict;
  - counts every role's prompt on every task, rendered with the real
    files, against its tokens.in high, and a proposer's prompt as a later
    round grows it (the parent, a full history and the loop's inspirations,
    each the size of the check's own answers).

A spec that still needs something of yours is refused first, before
anything starts, one error each at the line that says what to give: a
variable whose supply says a run needs it and that is empty
(E_UNSUPPLIED), a task suite's checkout not named (an empty suite_root)
or a placeholder of its manifest not written (E_SUITE_UNFILLED).

Each problem names the role, the task, what went wrong and what to change;
a warning does not fail the check. The check's journal, worktrees and
work directories go in a temporary directory, removed at the end; it
reserves nothing against the spec's budget and records no run. Like run,
it writes the spec's lock file when it has none.

validate and estimate count the first prompts too, without a call or a
run.

With --json, prints the result as JSON (at_most, spent, baselines,
prompts, answered and findings), and what it spends at most on standard
error first.

Exit codes: 0 the check passed (warnings allowed), 1 it found a problem,
or the spec is invalid, 64 usage error.`,
		Example: `  assay check specs/quickstart.hcl
  assay check -var base_url=http://127.0.0.1:8000/v1 real.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			p, src, err := mustCompile(c, args[0], flags)
			if err != nil {
				return err
			}
			if ds := capDiags(p); ds.HasErrors() {
				printDiags(c.ErrOrStderr(), ds, src)
				return userErrorf("%s", capBroken)
			}
			if err := refuseUnready(c, p, src); err != nil {
				return err
			}
			spend, err := runtime.CheckSpendOf(p, variant)
			if err != nil {
				return userErrorf("%v", err)
			}
			// Said before anything is spent (on standard error with --json,
			// whose output is one object).
			first := c.OutOrStdout()
			if asJSON {
				first = c.ErrOrStderr()
			}
			fmt.Fprintf(first, "check %s: spends at most %s\n", termSafe(args[0]), spendLine(spend))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			lock, err := lockFor(ctx, args[0], p, c.ErrOrStderr())
			if err != nil {
				return err
			}
			scratch, err := os.MkdirTemp("", "assay-check-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(scratch)
			res, err := runtime.Check(ctx, p, runtime.CheckOptions{Variant: variant, Dir: scratch, Progress: c.ErrOrStderr(), Count: promptCount,
				Plugins: hostLoader{lock: lock, opts: []host.OpenOption{host.WithLogFile(filepath.Join(scratch, "plugins.log"))}}})
			if err != nil {
				return userErrorf("check %s: %v", args[0], err)
			}
			if asJSON {
				b, err := json.MarshalIndent(res, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(c.OutOrStdout(), string(b))
			} else {
				writeCheck(c.OutOrStdout(), args[0], res)
			}
			if res.Failed() {
				return silentFailure()
			}
			return nil
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	c.Flags().StringVar(&variant, "variant", "", "variant of a sweep to check (default: the first)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}

func spendLine(s runtime.CheckSpend) string {
	return fmt.Sprintf("%d build(s), %d real run(s) (%s GPU-hours held), %d LLM call(s), %s",
		s.Builds, s.RealRuns, estimate.FormatNumber(s.GPUHours), s.Calls, estimate.FormatUSD(s.USD))
}

// writeCheck prints a check's result: the baselines read, the prompts
// counted, the roles answered, each problem with what to change, and a
// last line that says whether it passed and what it spent.
func writeCheck(w io.Writer, spec string, res *runtime.CheckResult) {
	for _, b := range res.Baselines {
		fmt.Fprintf(w, "baseline  %s: %.6g\n", termSafe(b.Task), b.Metric)
	}
	for _, p := range res.Prompts {
		at := "first call"
		if p.Later {
			at = "later round"
		}
		fmt.Fprintf(w, "prompt    role %s, task %s, %s: %d of %d tokens\n", termSafe(p.Role), termSafe(p.Task), at, p.Tokens, p.Limit)
	}
	if len(res.Answered) > 0 {
		fmt.Fprintf(w, "answered  %s\n", termSafe(strings.Join(res.Answered, ", ")))
	}
	failed := 0
	for _, f := range res.Findings {
		head := "problem "
		if f.Warning {
			head = "warning "
		} else {
			failed++
		}
		var who []string
		if f.Role != "" {
			who = append(who, "role "+f.Role)
		}
		if f.Task != "" {
			who = append(who, "task "+f.Task)
		}
		if len(who) > 0 {
			head += strings.Join(who, ", ") + ": "
		}
		fmt.Fprintf(w, "%s%s\n", termSafe(head), plugins.Printable(f.Problem))
		if f.Fix != "" {
			fmt.Fprintf(w, "          %s\n", plugins.Printable(strings.ReplaceAll(f.Fix, " SPEC ", " "+spec+" ")))
		}
	}
	verdict := "passed"
	if failed > 0 {
		verdict = fmt.Sprintf("failed: %d problem(s)", failed)
	}
	fmt.Fprintf(w, "check %s %s; spent %s\n", termSafe(spec), verdict, spendLine(res.Spent))
}

// promptCount counts a prompt as the plugin that serves its role does:
// builtin:openai refuses one over tokens.in by its own count, exactly;
// builtin:offline reads the call's input, not a prompt; another plugin
// counts its own way, estimated at one token per byte.
func promptCount(pl *plan.Plugin, msgs []payload.Message) (int, bool, bool) {
	ms := make([]plugins.Message, len(msgs))
	for i, m := range msgs {
		ms[i] = plugins.Message{Role: m.Role, Content: m.Content}
	}
	switch pl.Source {
	case "builtin:openai":
		return openai.PromptTokens(ms), true, true
	case "builtin:offline":
		return 0, false, false
	}
	return openai.PromptTokens(ms), false, true
}

// promptLimitDiags is what validate and estimate know of prompts without
// a call: every role's first prompt against its tokens.in high. A spec
// with a lock starts each trainer through it to describe its knobs, as
// assay prompt does; nothing is written. Without a lock (or with one that
// does not match) the prompts are rendered without knobs, shorter than a
// run's, so only what is over even then is said.
func promptLimitDiags(specPath string, p *plan.Plan) diag.Diagnostics {
	var l runtime.Loader
	path := host.LockPathFor(specPath)
	if lock, err := host.ReadLock(path); err == nil && host.Verify(lock, path, pluginSpecs(p)) == nil {
		l = hostLoader{lock: lock}
	}
	return runtime.PromptDiags(context.Background(), p, l, promptCount)
}
