package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/runtime"
)

// stateWaiting is how watch shows a variant of a group that has not
// started yet: its group runs a few variants at a time.
const stateWaiting = "waiting"

// groupView is one refresh of a group: every variant of its plan, started
// or not.
type groupView struct {
	Group    string            `json:"group"`
	Variants []*runtime.Status `json:"variants"`
	// Seeds: a group of seeds (run --seeds), whose runs are
	// variant-seed pairs rather than variants.
	Seeds bool `json:"seeds,omitempty"`
}

// unit names the group's runs: variants, or runs for a group of seeds.
func (g *groupView) unit() string {
	if g.Seeds {
		return "runs"
	}
	return "variants"
}

// member is the run id of g and its place in the group (from 1), or 0.
func (g *groupView) member(id string) (int, *runtime.Status) {
	for i, s := range g.Variants {
		if s.ID == id {
			return i + 1, s
		}
	}
	return 0, nil
}

// running reports whether a variant of the group still runs, and done
// whether every variant has started and none runs.
func (g *groupView) running() (running, done bool) {
	done = true
	for _, s := range g.Variants {
		switch s.State {
		case runtime.StateRunning:
			running, done = true, false
		case stateWaiting:
			done = false
		}
	}
	return running, done
}

// readGroup reads the runs of group g (run --all-variants names them
// G-v1, G-v2, ...); ok is false when no run of it exists yet. Variants of
// its plan without a run are listed as waiting.
func readGroup(dir, g string) (*groupView, bool, error) {
	list, err := runtime.ListRuns(dir)
	if err != nil {
		return nil, false, err
	}
	if ms := seedMembers(list, g); ms != nil {
		return &groupView{Group: g, Variants: ms, Seeds: true}, true, nil
	}
	byIndex := map[int]*runtime.Status{}
	total := 0
	for _, s := range list {
		if s.Meta["group"] != g {
			continue
		}
		i, err := strconv.Atoi(s.Meta["variant_index"])
		if err != nil || i < 1 {
			continue
		}
		byIndex[i] = s
		total = max(total, i, planVariants(dir, s.ID))
	}
	if len(byIndex) == 0 {
		return nil, false, nil
	}
	v := &groupView{Group: g}
	for i := 1; i <= total; i++ {
		s := byIndex[i]
		if s == nil {
			s = &runtime.Status{ID: g + "-v" + strconv.Itoa(i), State: stateWaiting,
				Reason: "not started yet: the group runs its variants a few at a time (run --parallel)"}
		}
		v.Variants = append(v.Variants, s)
	}
	return v, true, nil
}

// planVariants is the number of variants of the plan run id runs, or 0
// when its plan cannot be read.
func planVariants(dir, id string) int {
	path := filepath.Join(runtime.RunDir(dir, id), runtime.PlanFile)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSavedPlan {
		return 0
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var p struct {
		Variants []json.RawMessage `json:"variants"`
	}
	if json.Unmarshal(b, &p) != nil {
		return 0
	}
	return len(p.Variants)
}

// writeGroup renders one refresh of a group.
func writeGroup(w io.Writer, g *groupView) {
	counts := map[string]int{}
	for _, s := range g.Variants {
		counts[s.State]++
	}
	var parts []string
	for _, st := range []string{runtime.StateFinished, runtime.StateRunning, stateWaiting} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
			delete(counts, st)
		}
	}
	var rest []string
	for st := range counts {
		rest = append(rest, st)
	}
	sort.Strings(rest)
	for _, st := range rest {
		parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
	}
	fmt.Fprintf(w, "group %s: %d %s (%s)\n", g.Group, len(g.Variants), g.unit(), strings.Join(parts, ", "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tVARIANT\tSTATE\tPHASE\tREAL RUNS\tDOLLARS")
	for _, s := range g.Variants {
		if s.State == stateWaiting {
			fmt.Fprintf(tw, "%s\t-\t%s\t-\t-\t-\n", s.ID, s.State)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Variant, s.State, s.Phase, runsOf(s), estimate.FormatUSD(s.RunUSD))
	}
	tw.Flush()
}

// watchGroup shows group g every interval until every variant has run:
// exit 0 when all finished, 4 when none failed but a cap stopped one, 1
// otherwise. A group with variants waiting
// and none running is waited on up to wait (the next variant may be about
// to start); then watch says which variants never started.
func watchGroup(ctx context.Context, w io.Writer, dir, g string, interval, wait time.Duration, asJSON bool) error {
	tty := useColor(w) && !asJSON
	var last []byte
	var idleSince time.Time
	for {
		v, ok, err := readGroup(dir, g)
		if err != nil {
			return userErrorf("%v", err)
		}
		if !ok {
			// A journal being written can be unreadable for a moment.
			if idleSince.IsZero() {
				idleSince = time.Now()
			} else if time.Since(idleSince) >= wait {
				return userErrorf("no run or group %q in %s", g, dir)
			}
			if !sleepCtx(ctx, min(interval, wait/2+time.Millisecond)) {
				return nil
			}
			continue
		}
		var b bytes.Buffer
		if asJSON {
			if err := writeJSON(&b, v); err != nil {
				return err
			}
		} else {
			writeGroup(&b, v)
		}
		if !bytes.Equal(b.Bytes(), last) {
			if tty {
				fmt.Fprint(w, "\x1b[H\x1b[2J")
				fmt.Fprintf(w, "assay status --watch %s  (every %s, %s)\n\n", termSafe(g), interval, time.Now().Format("15:04:05"))
			} else if last != nil && !asJSON {
				fmt.Fprintln(w, "---")
			}
			if _, err := w.Write(escapeTerm(b.Bytes(), asJSON)); err != nil {
				return err
			}
			last = b.Bytes()
		}
		running, done := v.running()
		switch {
		case done:
			capped := false
			for _, s := range v.Variants {
				switch s.State {
				case runtime.StateFinished:
				case runtime.StateStoppedAtCap:
					capped = true
				default:
					return silentFailure()
				}
			}
			if capped {
				return &exitError{code: exitCap}
			}
			return nil
		case running:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = time.Now()
		case time.Since(idleSince) >= wait:
			var never []string
			for _, s := range v.Variants {
				if s.State == stateWaiting {
					never = append(never, s.ID)
				}
			}
			return userErrorf("group %s runs no variant, and %s did not start within %s: the group's run stopped before them; run them with assay run --variant NAME",
				g, strings.Join(never, ", "), wait)
		}
		if !sleepCtx(ctx, min(interval, wait/2+time.Millisecond)) {
			return nil
		}
	}
}

// sleepCtx sleeps d; false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// writeGroupStatus shows id when it names no run but a group, or a variant
// of a group that has not started yet; shown is false otherwise.
func writeGroupStatus(w io.Writer, dir, id string, asJSON bool) (shown bool, err error) {
	if g, ok, err := readGroup(dir, id); err == nil && ok {
		if asJSON {
			return true, writeJSON(w, g)
		}
		return true, writeEscaped(w, func(w io.Writer) error { writeGroup(w, g); return nil })
	}
	m := memberRE.FindStringSubmatch(id)
	if m == nil {
		return false, nil
	}
	g, ok, err := readGroup(dir, m[1])
	if err != nil || !ok {
		return false, nil
	}
	i, s := g.member(id)
	if s == nil || s.State != stateWaiting {
		return false, nil
	}
	if asJSON {
		return true, writeJSON(w, s)
	}
	fmt.Fprintf(w, "run        %s\nstate      %s: %s %d of group %s has not started yet\n", termSafe(s.ID), s.State, strings.TrimSuffix(g.unit(), "s"), i, termSafe(m[1]))
	return true, nil
}

// memberRE splits a group member's id, GROUP-vN, or GROUP-vN-sSEED in a
// group of seeds.
var memberRE = regexp.MustCompile(`^(.+)-v([1-9][0-9]*)(?:-s[0-9]+)?$`)

// awaitRun waits, up to wait, for id to appear as a run or as a group of
// runs, saying why it is not there: a variant of a group that has not
// started yet is waited on as long as its group runs. It returns whether
// id turned out to be a group; nil error once it appeared.
func awaitRun(ctx context.Context, w io.Writer, dir, id string, interval, wait time.Duration, asJSON bool) (group bool, err error) {
	deadline := time.Now().Add(wait)
	said := ""
	for {
		if dirExists(runtime.RunDir(dir, id)) {
			return false, nil
		}
		if _, ok, err := readGroup(dir, id); err == nil && ok {
			return true, nil
		}
		msg := fmt.Sprintf("run %s has not started; waiting up to %s for it", id, wait)
		if m := memberRE.FindStringSubmatch(id); m != nil {
			if g, ok, err := readGroup(dir, m[1]); err == nil && ok {
				i, _ := g.member(id)
				if i == 0 {
					return false, userErrorf("group %s has %d %s; there is no %s", m[1], len(g.Variants), g.unit(), id)
				}
				one := strings.TrimSuffix(g.unit(), "s")
				msg = fmt.Sprintf("run %s is %s %d of group %s, which runs no %s now; waiting up to %s for it to start", id, one, i, m[1], one, wait)
				if running, _ := g.running(); running {
					// Its group goes on: wait as long as it does.
					deadline = time.Now().Add(wait)
					msg = fmt.Sprintf("run %s is waiting: %s %d of group %s has not started yet (the group runs a few %s at a time)", id, one, i, m[1], g.unit())
				}
			}
		}
		if msg != said && !asJSON {
			fmt.Fprintln(w, termSafe(msg))
			said = msg
		}
		if !time.Now().Before(deadline) {
			return false, userErrorf("no run %q in %s after waiting %s: check the id and --dir, or start it with assay run --id %s", id, dir, wait, id)
		}
		select {
		case <-ctx.Done():
			return false, nil
		case <-time.After(min(interval, time.Until(deadline)+time.Millisecond)):
		}
	}
}
