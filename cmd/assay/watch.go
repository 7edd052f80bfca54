package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/compare"
)

// watchRun shows run id's status every interval until the run ends. On a
// terminal each refresh redraws the screen; elsewhere a block is printed
// whenever it changed, so a log stays short. It reads the journal
// read-only, as status does, and never takes the run's lock. An id that
// names a group of run --all-variants follows every variant of it; a run
// that has not started yet is waited for (up to wait, or as long as the
// group it belongs to runs).
func watchRun(ctx context.Context, w io.Writer, dir, id string, interval, wait time.Duration, asJSON bool) error {
	if interval <= 0 {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("--interval must be positive, got %s", interval)}
	}
	if wait < 0 {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("--wait must not be negative, got %s", wait)}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if !dirExists(runtime.RunDir(dir, id)) {
		group, err := awaitRun(ctx, w, dir, id, interval, wait, asJSON)
		if err != nil || ctx.Err() != nil {
			return err
		}
		if group {
			return watchGroup(ctx, w, dir, id, interval, wait, asJSON)
		}
	}
	tty := useColor(w) && !asJSON
	var last []byte
	// A run that is just starting has a directory before its journal, and
	// a journal before its run record; watch waits for them a while.
	grace := time.Now().Add(wait)
	for {
		st, err := runtime.ReadStatus(dir, id)
		starting := time.Now().Before(grace) && (err != nil && dirExists(runtime.RunDir(dir, id)) || err == nil && st.State == runtime.StateEmpty)
		if starting {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(min(interval, time.Second)):
			}
			continue
		}
		if err != nil {
			return userErrorf("%v", err)
		}
		var b bytes.Buffer
		if asJSON {
			if err := writeJSON(&b, st); err != nil {
				return err
			}
		} else {
			writeStatus(&b, st)
			writeLive(&b, dir, id)
		}
		if !bytes.Equal(b.Bytes(), last) {
			if tty {
				// Home and clear, then the block: a redraw in place.
				fmt.Fprint(w, "\x1b[H\x1b[2J")
				fmt.Fprintf(w, "assay status --watch %s  (every %s, %s)\n\n", termSafe(id), interval, time.Now().Format("15:04:05"))
			} else if last != nil && !asJSON {
				fmt.Fprintln(w, "---")
			}
			if _, err := w.Write(escapeTerm(b.Bytes(), asJSON)); err != nil {
				return err
			}
			last = b.Bytes()
		}
		if st.State != runtime.StateRunning {
			return endedExit(st.State)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

// endedExit is the exit of a watch whose run ended in state: that of the
// run command.
func endedExit(state string) error {
	switch state {
	case runtime.StateFinished:
		return nil
	case runtime.StateStoppedAtCap:
		return &exitError{code: exitCap}
	case runtime.StatePhaseFailed:
		return &exitError{code: exitPhaseFailed}
	}
	return silentFailure()
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// escapeTerm keeps text from a journal from driving the terminal; JSON
// escapes control characters itself.
func escapeTerm(b []byte, asJSON bool) []byte {
	if asJSON {
		return b
	}
	return []byte(escapeControls(string(b)))
}

// writeLive adds what a run measured so far: the latest RL step or
// evolution round, the last calibration, the evaluation and the best real
// gain.
func writeLive(w io.Writer, dir, id string) {
	rep, err := runtime.LoadReport(dir, id)
	if err != nil {
		return
	}
	if n := len(rep.Steps); n > 0 {
		s := rep.Steps[n-1]
		fmt.Fprintf(w, "last step  %s step %d: mean reward %.4g, %d real runs\n", s.Loop, s.Step, s.MeanReward, s.RealRuns)
	}
	if n := len(rep.Rounds); n > 0 {
		r := rep.Rounds[n-1]
		fmt.Fprintf(w, "last round %s %s round %d: best gain %.4g, %d verified\n", r.Loop, r.Task, r.Round, r.Best, r.Verified)
	}
	if n := len(rep.Calibration); n > 0 {
		c := rep.Calibration[n-1]
		fmt.Fprintf(w, "calibrated round %d after step %d: MAE %.4g, rank accuracy %.3g\n", c.Round, c.AfterStep, c.MAE, c.RankAcc)
	}
	if n := len(rep.Evaluation); n > 0 {
		e := rep.Evaluation[n-1]
		fmt.Fprintf(w, "evaluation %s %.4g, %s %.4g\n", e.AvgLabel(), e.Avg, e.BestLabel(), e.Best)
	}
	row := compare.FromReport(rep, nil)
	if row.BestGain != nil && rep.Status.Totals == nil {
		fmt.Fprintf(w, "best gain  %.4g so far\n", *row.BestGain)
	}
}
