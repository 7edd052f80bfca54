package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/runtime"
)

// runAllVariants runs every variant of p as one group: run GROUP-vN for the
// N-th variant, each with its own journal, budget and lock, with the group
// id and the variant's index recorded in its journal (meta "group",
// "variant_index") for assay compare GROUP.
func runAllVariants(c *cobra.Command, ctx context.Context, p *plan.Plan, lock *host.Lock, meta map[string]string, prov *runtime.Provenance, rf *runFlags, group string, parallel int) error {
	if group == "" {
		group = runtime.NewID()
	}
	ms := make([]groupMember, len(p.Variants))
	for i, v := range p.Variants {
		ms[i] = groupMember{id: group + "-v" + strconv.Itoa(i+1), p: p, variant: v.Name,
			meta: map[string]string{"variant_index": strconv.Itoa(i + 1)}, prov: prov}
	}
	return runGroup(c, ctx, ms, lock, meta, rf, group, parallel, "")
}

// groupMember is one run of a group: its id, the plan and variant it runs,
// what its journal records beside the command's meta, and its provenance.
type groupMember struct {
	id      string
	p       *plan.Plan
	variant string
	meta    map[string]string
	prov    *runtime.Provenance
}

// runGroup runs the members of group, each with its own journal, budget
// and lock, the group id in its journal meta. At most parallel members run
// at once; each runs its real runs with the executor's own concurrency.
// what describes a group of seeds ("" for a group of variants).
func runGroup(c *cobra.Command, ctx context.Context, ms []groupMember, lock *host.Lock, meta map[string]string, rf *runFlags, group string, parallel int, what string) error {
	out, errw := c.OutOrStdout(), c.ErrOrStderr()
	for _, m := range ms {
		if _, err := os.Stat(filepath.Join(runtime.RunDir(rf.dir, m.id), runtime.PlanFile)); err == nil {
			return userErrorf("run %s already exists in %s; choose another --id for the group", m.id, rf.dir)
		}
	}
	unit := "variants"
	if what != "" {
		unit = "runs"
		fmt.Fprintf(errw, "assay: running %d runs (%s) as group %s, %d at a time\n", len(ms), what, group, parallel)
	} else {
		fmt.Fprintf(errw, "assay: running %d variants as group %s, %d at a time\n", len(ms), group, parallel)
	}
	var mu sync.Mutex // guards out and failed
	var failed, capped []string
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
launch:
	for _, gm := range ms {
		select {
		case <-ctx.Done():
			break launch
		case sem <- struct{}{}:
		}
		wg.Add(1)
		go func(gm groupMember) {
			defer wg.Done()
			defer func() { <-sem }()
			m := map[string]string{"group": group}
			for k, x := range gm.meta {
				m[k] = x
			}
			for k, x := range meta {
				m[k] = x
			}
			opts := runtime.Options{ID: gm.id, Dir: rf.dir, Variant: gm.variant, Meta: m, Provenance: gm.prov}
			// One run at a time keeps the live progress of a terminal;
			// runs side by side write prefixed lines instead.
			var pw *prefixWriter
			switch {
			case rf.quiet:
			case parallel == 1:
				opts.Progress = errw
			default:
				pw = &prefixWriter{w: errw, mu: &mu, prefix: "[" + gm.id + "] "}
				opts.Progress = pw
			}
			// runtime.Run makes the run's directory before plugins start.
			logPath := filepath.Join(runtime.RunDir(opts.Dir, opts.ID), "plugins.log")
			opts.Plugins = hostLoader{lock: lock, opts: []host.OpenOption{host.WithLogFile(logPath)}}
			res, err := runtime.Run(ctx, gm.p, opts)
			if pw != nil {
				pw.flush()
			}
			mu.Lock()
			defer mu.Unlock()
			if res != nil {
				fmt.Fprintf(out, "run %s (%s) %s: %d real runs, %s GPU-hours, %s\n", gm.id, termSafe(gm.variant), res.State,
					res.Totals.RealRuns, estimate.FormatNumber(res.Totals.GPUHours), estimate.FormatUSD(res.Totals.USD))
			}
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					fmt.Fprintf(errw, "assay: run %s: %v\n", gm.id, err)
				}
				failed = append(failed, gm.id)
			} else if res != nil && res.State == runtime.StatePhaseFailed {
				fmt.Fprintf(errw, "assay: %v\n", phaseFailedError(gm.id, res.Failures))
				failed = append(failed, gm.id)
			} else if res != nil && res.State == runtime.StateStoppedAtCap {
				fmt.Fprintf(errw, "assay: %v\n", capCutError(gm.id, res.Cuts))
				capped = append(capped, gm.id)
			}
		}(gm)
	}
	wg.Wait()
	fmt.Fprintf(out, "group %s: %d of %d %s finished; compare: assay compare %s\n", group, len(ms)-len(failed)-len(capped), len(ms), unit, group)
	if ctx.Err() != nil {
		return userErrorf("group %s interrupted; continue each run with assay resume ID", group)
	}
	if len(failed) > 0 {
		return userErrorf("%d run(s) of group %s did not finish: %v", len(failed), group, failed)
	}
	if len(capped) > 0 {
		return &exitError{code: exitCap, msg: fmt.Sprintf("%d run(s) of group %s stopped at a budget cap: %v", len(capped), group, capped)}
	}
	return nil
}

// prefixWriter writes whole lines, each with a prefix, so the progress of
// variants that run side by side stays readable.
type prefixWriter struct {
	w      io.Writer
	mu     *sync.Mutex
	prefix string
	buf    bytes.Buffer
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf.Write(b)
	for {
		i := bytes.IndexByte(p.buf.Bytes(), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := p.buf.Next(i + 1)
		p.mu.Lock()
		_, err := fmt.Fprintf(p.w, "%s%s", p.prefix, line)
		p.mu.Unlock()
		if err != nil {
			return len(b), err
		}
	}
}

func (p *prefixWriter) flush() {
	if p.buf.Len() > 0 {
		p.Write([]byte("\n"))
	}
}
