package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/host"
)

func init() { rootCmd.AddCommand(newInitCmd()) }

func newInitCmd() *cobra.Command {
	var flags *specFlags
	var upgrade []string
	var upgradePrompts bool
	c := &cobra.Command{
		Use:   "init [-upgrade[=PLUGIN,...]] [-upgrade-prompts] SPEC",
		Short: "Resolve a spec's plugins and write its lock file",
		Long: `Init resolves every plugin SPEC declares and writes SPEC's lock file
beside it: SPEC.lock (quickstart.hcl is locked by quickstart.hcl.lock). Each
spec has its own lock, so running one spec never changes another's. Commit
the lock with the spec: it pins what a reviewer's run starts.

For each plugin the lock records its name, kind, source and version, and:

  - for a built-in plugin ("builtin:NAME"), the Assay release that serves
    it. Built-ins are served by the assay binary itself (it starts itself as
    the plugin process), so nothing is compiled and any directory works.
  - for any other source (a path to an executable, relative to the spec),
    the executable's SHA-256 for each platform it was locked on
    (linux/amd64, darwin/arm64, ...).

The lock is trusted, not refreshed:

  - Init only adds: plugins the lock lacks, and this platform's checksum of
    a plugin locked on other platforms. It drops plugins the spec no longer
    declares. It prints every change it makes.
  - A locked entry never changes by itself. An executable whose SHA-256
    differs from the one locked for this platform, a declaration with
    another kind, source or version, or a built-in locked by another Assay
    release is refused, by init and by run, with what to do. If the change
    is deliberate, accept it with -upgrade=PLUGIN (or -upgrade for every
    plugin of SPEC).

The lock also pins the prompt and criteria files the plan reads (a role's
system_file, user_file or criteria_file, and a task-suite task's
criteria_file): for each, what it is for, the file and the SHA-256 of the
text the plan holds from it (the file without its final newline). Init
adds the files the lock lacks and drops those the plan no longer reads; a
file whose text changed is refused, by init and by run, until the change
is accepted with -upgrade-prompts (or -upgrade). assay prompt does not
check them: it exists to try a prompt file's changes before they are
locked. Inline prompts and Assay's default templates are part of the plan
and its hash, not files, and are not in the lock.

assay run writes the lock when the spec has none; when it has one, run
only checks it and refuses a mismatch.`,
		Example: `  assay init specs/quickstart.hcl
  assay init -upgrade=trainer specs/quickstart.hcl
  assay init -upgrade specs/quickstart.hcl
  assay init -upgrade-prompts specs/judged.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			p, _, err := mustCompile(c, args[0], flags)
			if err != nil {
				return err
			}
			opts := host.Options{Log: c.ErrOrStderr(), UpgradePrompts: upgradePrompts}
			for _, u := range upgrade {
				if u == upgradeAll {
					opts.UpgradeAll = true
				} else {
					opts.Upgrade = append(opts.Upgrade, u)
				}
			}
			lock, err := initLock(c.Context(), args[0], p, opts)
			if err != nil {
				return err
			}
			for _, lp := range lock.Plugins {
				pin := "assay " + lp.AssayVersion
				if sum, ok := lp.Checksums[host.Platform]; ok {
					pin = fmt.Sprintf("sha256:%.12s (%d platforms)", sum, len(lp.Checksums))
				}
				fmt.Fprintf(c.OutOrStdout(), "%-12s %-9s %-24s %s\n", lp.Name, lp.Kind, termSafe(lp.Source), pin)
			}
			for _, lp := range lock.Prompts {
				fmt.Fprintf(c.OutOrStdout(), "%-12s %-9s %-24s sha256:%.12s (%s)\n", "prompt", "file", termSafe(lp.File), lp.SHA256, termSafe(lp.Use))
			}
			fmt.Fprintf(c.OutOrStdout(), "locked in %s\n", host.LockPathFor(args[0]))
			return nil
		},
	}
	flags = addSpecFlags(c)
	c.Flags().StringSliceVar(&upgrade, "upgrade", nil, "let the lock entries of these plugins change (all of SPEC's plugins when given without a value)")
	c.Flags().Lookup("upgrade").NoOptDefVal = upgradeAll
	c.Flags().BoolVar(&upgradePrompts, "upgrade-prompts", false, "let the lock's pinned prompt and criteria files change to their current text")
	return c
}

// upgradeAll is -upgrade's value when given without one.
const upgradeAll = "*"

// pluginSpecs lists the plugins of every variant of a plan, once each.
func pluginSpecs(p *plan.Plan) []host.Spec {
	seen := map[string]bool{}
	var out []host.Spec
	for _, v := range p.Variants {
		for _, pl := range v.Plugins {
			if seen[pl.Name] {
				continue
			}
			seen[pl.Name] = true
			out = append(out, host.Spec{Name: pl.Name, Kind: pl.Kind, Source: pl.Source, Version: pl.Version})
		}
	}
	return out
}

// initLock resolves and locks the plan's plugins for the spec at specPath.
func initLock(ctx context.Context, specPath string, p *plan.Plan, opts host.Options) (*host.Lock, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	opts.Prompts = promptPins(p)
	lock, err := host.Init(ctx, pluginSpecs(p), host.LockPathFor(specPath), opts)
	if err != nil {
		return nil, userErrorf("init: %s", withSpec(err, specPath))
	}
	return lock, nil
}

// withSpec names the spec in the commands an error of package host
// suggests ("assay init -upgrade SPEC").
func withSpec(err error, specPath string) string {
	return strings.ReplaceAll(err.Error(), " SPEC`", " "+specPath+"`")
}

// lockFor returns the spec's lock. A spec without one gets one, as assay
// init writes it (said on log); an existing lock is only checked: a
// mismatch is an error that says what to run, never a silent rewrite.
func lockFor(ctx context.Context, specPath string, p *plan.Plan, log io.Writer) (*host.Lock, error) {
	return lockWith(ctx, specPath, p, log, false)
}

// lockWith is lockFor, or with readOnly the lock of a command that only
// reads: assay prompt, which spends nothing, writes nothing and exists to
// try a prompt file's changes, checks the plugins alone, and for a spec
// without a lock resolves them as init would without writing one.
func lockWith(ctx context.Context, specPath string, p *plan.Plan, log io.Writer, readOnly bool) (*host.Lock, error) {
	path := host.LockPathFor(specPath)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if readOnly {
			return initLock(ctx, specPath, p, host.Options{NoWrite: true})
		}
		lock, err := initLock(ctx, specPath, p, host.Options{Log: log})
		if err == nil {
			fmt.Fprintf(log, "assay: wrote %s; commit it with the spec\n", path)
		}
		return lock, err
	}
	lock, err := host.ReadLock(path)
	if err != nil {
		return nil, userErrorf("%s", withSpec(err, specPath))
	}
	if err := host.Verify(lock, path, pluginSpecs(p)); err != nil {
		return nil, userErrorf("%s", withSpec(err, specPath))
	}
	if !readOnly {
		if err := host.VerifyPrompts(lock, path, promptPins(p)); err != nil {
			return nil, userErrorf("%s", withSpec(err, specPath))
		}
	}
	return lock, nil
}

// promptPins are the prompt and criteria files every variant of p reads,
// as the lock pins them: each role template or criteria the plan took
// from a file, and each suite task's criteria file, with the digest of the
// text the plan holds. Inline texts and Assay's defaults are no file.
func promptPins(p *plan.Plan) []host.LockedPrompt {
	var out []host.LockedPrompt
	seen := map[host.LockedPrompt]bool{}
	add := func(use, from, text string) {
		if from == "" || from == "inline" || strings.HasPrefix(from, "default v") {
			return
		}
		lp := host.LockedPrompt{Use: use, File: from, SHA256: host.PromptDigest(text)}
		if !seen[lp] {
			seen[lp] = true
			out = append(out, lp)
		}
	}
	for _, v := range p.Variants {
		for _, r := range v.Roles {
			if pr := r.Prompt; pr != nil {
				add("role "+r.Name+" system", pr.SystemFrom, pr.System)
				add("role "+r.Name+" user", pr.UserFrom, pr.User)
				add("role "+r.Name+" criteria", pr.CriteriaFrom, pr.Criteria)
			}
		}
		for _, e := range v.Envs {
			for _, t := range e.Tasks {
				add("task "+e.Name+"/"+t.Name+" criteria", t.CriteriaFrom, t.Criteria)
			}
		}
	}
	return out
}
