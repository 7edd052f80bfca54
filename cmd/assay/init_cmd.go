package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"assay/compiler/plan"
	"assay/plugins/host"
)

func init() { rootCmd.AddCommand(newInitCmd()) }

func newInitCmd() *cobra.Command {
	var flags *specFlags
	var rebuild bool
	var upgrade []string
	c := &cobra.Command{
		Use:   "init [--upgrade[=PLUGIN,...]] SPEC",
		Short: "Resolve a spec's plugins and write the lock file",
		Long: `Init resolves every plugin SPEC declares: a built-in plugin
("builtin:NAME") is built from this source tree and cached under .assay/plugins
next to the spec; any other source is a path to an executable. It writes the
lock file (assay.lock.json next to the spec) with each plugin's binary and
SHA-256, so a run starts exactly the binaries that were locked.

The lock is trusted, not refreshed:

  - A locked entry never changes by itself. When a plugin's binary no longer
    has its locked SHA-256 (it was patched, rebuilt from changed source, or
    built by another Go toolchain), init and run refuse and print both
    checksums. Restore the binary, or, if the change is deliberate, accept
    it with --upgrade=PLUGIN.
  - A built-in is always built afresh into a temporary file, hashed, and only
    then moved over the cached binary, so a changed cached binary is replaced
    rather than locked.
  - All specs in one directory share assay.lock.json, keyed by plugin name.
    Init adds the spec's new plugins and leaves other specs' entries alone.
    A plugin that another spec (or an earlier version of this one) locked
    with another kind, source or version is a conflict: rename it in one
    spec, or replace the entry with --upgrade=PLUGIN.
  - --upgrade alone re-locks every plugin of SPEC; --upgrade=a,b only those.
    A lock file that cannot be read is rewritten only with --upgrade (it may
    hold other specs' plugins, which are then dropped).

assay run does this by itself when the spec has no lock file yet or lacks
one of its plugins; it never upgrades.`,
		Example: `  assay init specs/quickstart.hcl
  assay init --upgrade=trainer specs/quickstart.hcl
  assay init --upgrade specs/quickstart.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			p, _, err := mustCompile(c, args[0], flags)
			if err != nil {
				return err
			}
			opts := host.Options{Rebuild: rebuild}
			for _, u := range upgrade {
				if u == upgradeAll {
					opts.UpgradeAll = true
				} else {
					opts.Upgrade = append(opts.Upgrade, u)
				}
			}
			lock, err := initLock(c.Context(), args[0], p, opts, c.ErrOrStderr())
			if err != nil {
				return err
			}
			for _, lp := range lock.Plugins {
				fmt.Fprintf(c.OutOrStdout(), "%-12s %-9s %-24s sha256:%.12s\n", lp.Name, lp.Kind, lp.Source, lp.SHA256)
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s\n", host.LockPathFor(args[0]))
			return nil
		},
	}
	flags = addSpecFlags(c)
	c.Flags().BoolVar(&rebuild, "rebuild", false, "build built-in plugins ignoring Go's build cache (go build -a)")
	c.Flags().StringSliceVar(&upgrade, "upgrade", nil, "let the lock entries of these plugins change (all of SPEC's plugins when given without a value)")
	c.Flags().Lookup("upgrade").NoOptDefVal = upgradeAll
	return c
}

// upgradeAll is --upgrade's value when given without one.
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

// initLock builds and locks the plan's plugins for the spec at specPath.
func initLock(ctx context.Context, specPath string, p *plan.Plan, opts host.Options, log io.Writer) (*host.Lock, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	fmt.Fprintf(log, "assay: resolving plugins of %s (built-in plugins are compiled on first use)\n", specPath)
	lock, err := host.Init(ctx, pluginSpecs(p), host.LockPathFor(specPath), opts)
	if err != nil {
		return nil, userErrorf("init: %v", err)
	}
	return lock, nil
}

// lockFor returns the spec's lock, writing it first when there is none or
// when it lacks a plugin the plan needs.
func lockFor(ctx context.Context, specPath string, p *plan.Plan, log io.Writer) (*host.Lock, error) {
	path := host.LockPathFor(specPath)
	if _, err := os.Stat(path); err == nil {
		lock, err := host.ReadLock(path)
		if err != nil {
			return nil, userErrorf("%v; run `assay init %s` to rewrite it", err, specPath)
		}
		complete := true
		for _, s := range pluginSpecs(p) {
			lp, ok := lock.Plugin(s.Name)
			if !ok || lp.Source != s.Source || lp.Kind != s.Kind {
				complete = false
			}
		}
		if complete {
			return lock, nil
		}
	}
	return initLock(ctx, specPath, p, host.Options{}, log)
}
