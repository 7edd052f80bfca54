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

	"assay/compiler/estimate"
	"assay/compiler/plan"
	"assay/plugins/host"
	"assay/runtime"
)

// runAllVariants runs every variant of p as one group: run GROUP-vN for the
// N-th variant, each with its own journal, budget and lock, with the group
// id and the variant's index recorded in its journal (meta "group",
// "variant_index") for assay compare GROUP. At most parallel variants run
// at once; each runs its real runs with the executor's own concurrency.
func runAllVariants(c *cobra.Command, ctx context.Context, p *plan.Plan, lock *host.Lock, meta map[string]string, prov *runtime.Provenance, rf *runFlags, group string, parallel int) error {
	if group == "" {
		group = runtime.NewID()
	}
	out, errw := c.OutOrStdout(), c.ErrOrStderr()
	ids := make([]string, len(p.Variants))
	for i := range p.Variants {
		ids[i] = group + "-v" + strconv.Itoa(i+1)
		if _, err := os.Stat(filepath.Join(runtime.RunDir(rf.dir, ids[i]), runtime.PlanFile)); err == nil {
			return userErrorf("run %s already exists in %s; choose another --id for the group", ids[i], rf.dir)
		}
	}
	fmt.Fprintf(errw, "assay: running %d variants as group %s, %d at a time\n", len(p.Variants), group, parallel)
	var mu sync.Mutex // guards out and failed
	var failed, capped []string
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
launch:
	for i, v := range p.Variants {
		select {
		case <-ctx.Done():
			break launch
		case sem <- struct{}{}:
		}
		wg.Add(1)
		go func(i int, v *plan.Variant) {
			defer wg.Done()
			defer func() { <-sem }()
			m := map[string]string{"group": group, "variant_index": strconv.Itoa(i + 1)}
			for k, x := range meta {
				m[k] = x
			}
			opts := runtime.Options{ID: ids[i], Dir: rf.dir, Variant: v.Name, Meta: m, Provenance: prov}
			// One variant at a time keeps the live progress of a terminal;
			// variants side by side write prefixed lines instead.
			var pw *prefixWriter
			switch {
			case rf.quiet:
			case parallel == 1:
				opts.Progress = errw
			default:
				pw = &prefixWriter{w: errw, mu: &mu, prefix: "[" + ids[i] + "] "}
				opts.Progress = pw
			}
			// runtime.Run makes the run's directory before plugins start.
			logPath := filepath.Join(runtime.RunDir(opts.Dir, opts.ID), "plugins.log")
			opts.Plugins = hostLoader{lock: lock, opts: []host.OpenOption{host.WithLogFile(logPath)}}
			res, err := runtime.Run(ctx, p, opts)
			if pw != nil {
				pw.flush()
			}
			mu.Lock()
			defer mu.Unlock()
			if res != nil {
				fmt.Fprintf(out, "run %s (%s) %s: %d real runs, %s GPU-hours, %s\n", ids[i], termSafe(v.Name), res.State,
					res.Totals.RealRuns, estimate.FormatNumber(res.Totals.GPUHours), estimate.FormatUSD(res.Totals.USD))
			}
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					fmt.Fprintf(errw, "assay: run %s: %v\n", ids[i], err)
				}
				failed = append(failed, ids[i])
			} else if res != nil && res.State == runtime.StateStoppedAtCap {
				fmt.Fprintf(errw, "assay: %v\n", capCutError(ids[i], res.Cuts))
				capped = append(capped, ids[i])
			}
		}(i, v)
	}
	wg.Wait()
	fmt.Fprintf(out, "group %s: %d of %d variants finished; compare: assay compare %s\n", group, len(p.Variants)-len(failed), len(p.Variants), group)
	if ctx.Err() != nil {
		return userErrorf("group %s interrupted; continue each run with assay resume ID", group)
	}
	if len(failed) > 0 {
		return userErrorf("%d variant run(s) of group %s did not finish: %v", len(failed), group, failed)
	}
	if len(capped) > 0 {
		return &exitError{code: exitCap, msg: fmt.Sprintf("%d variant run(s) of group %s stopped at a budget cap: %v", len(capped), group, capped)}
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
