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
	c := &cobra.Command{
		Use:   "init SPEC",
		Short: "Resolve a spec's plugins and write the lock file",
		Long: `Init resolves every plugin SPEC declares: a built-in plugin
("builtin:NAME") is built from this source tree and cached under .assay/plugins
next to the spec; any other source is a path to an executable. It writes the
lock file (assay.lock.json next to the spec) with each plugin's binary and
SHA-256, so a run starts exactly the binaries that were locked.

assay run does this by itself when the spec has no lock file yet.`,
		Example: `  assay init specs/quickstart.hcl`,
		Args:    usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			p, _, err := mustCompile(c, args[0], flags)
			if err != nil {
				return err
			}
			lock, err := initLock(c.Context(), args[0], p, rebuild, c.ErrOrStderr())
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
	c.Flags().BoolVar(&rebuild, "rebuild", false, "rebuild built-in plugins even when cached")
	return c
}

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
func initLock(ctx context.Context, specPath string, p *plan.Plan, rebuild bool, log io.Writer) (*host.Lock, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	fmt.Fprintf(log, "assay: resolving plugins of %s (built-in plugins are compiled on first use)\n", specPath)
	lock, err := host.Init(ctx, pluginSpecs(p), host.LockPathFor(specPath), host.Options{Rebuild: rebuild})
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
	return initLock(ctx, specPath, p, false, log)
}
