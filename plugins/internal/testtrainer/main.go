package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/assay-lang/assay/plugins"
	tinylm "github.com/assay-lang/assay/plugins/builtin/tinylm/model"
	"github.com/assay-lang/assay/plugins/sdk"
)

type run struct {
	done chan struct{}
	res  *plugins.RunResult
}

type trainer struct {
	mu   sync.Mutex
	runs map[string]*run
}

func (t *trainer) Describe(ctx context.Context, req *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return &plugins.DescribeResponse{Knobs: tinylm.Knobs()}, nil
}

func effect(k, v string) float64 {
	h := fnv.New64a()
	h.Write([]byte(k + "=" + v))
	return (float64(h.Sum64()%2001)/1000 - 1) * 0.1
}

func (t *trainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	// The handle is the run directory: a fresh process re-attaches to a
	// run that finished in an earlier one by reading its result there.
	h := &plugins.RunHandle{RunID: req.RunID, Handle: req.WorkDir}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.runs[req.RunID]; ok {
		return h, nil
	}
	if _, err := readDone(req.WorkDir); err == nil {
		return h, nil // it finished in an earlier process: nothing runs twice
	}
	delay := 100 * time.Millisecond
	if v, ok := req.Config["delay_ms"].(float64); ok {
		delay = time.Duration(v) * time.Millisecond
	}
	if err := os.MkdirAll(req.WorkDir, 0o755); err != nil {
		return nil, err
	}
	if id, _ := req.Config["crash_run"].(string); id == req.RunID {
		marker := req.WorkDir + ".crashed"
		if _, err := os.Stat(marker); errors.Is(err, os.ErrNotExist) {
			os.WriteFile(marker, nil, 0o644)
			os.Exit(3) // the plugin process dies in the middle of a call
		}
	}
	f, err := os.OpenFile(filepath.Join(req.WorkDir, "starts"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "start pid %d\n", os.Getpid())
	f.Close()
	r := &run{done: make(chan struct{})}
	t.runs[req.RunID] = r
	go func() {
		defer close(r.done)
		time.Sleep(delay)
		// A run says it took its whole time limit, so that what it is
		// charged does not depend on how busy the test machine was.
		res := &plugins.RunResult{RunID: req.RunID, Status: plugins.StatusFinished, Metric: 2, WorkDir: req.WorkDir, Seconds: req.TimeLimitSeconds}
		if _, err := tinylm.DefaultHyper().Apply(req.Proposal.Edits); err != nil {
			res.Status, res.Reason = plugins.StatusInfeasible, err.Error()
		}
		keys := make([]string, 0, len(req.Proposal.Edits))
		for k := range req.Proposal.Edits {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			res.Metric -= effect(k, req.Proposal.Edits[k])
		}
		// The result is the "done" marker, linked into place whole, so a
		// kill leaves either no marker or a complete result; a second
		// completion of one run leaves a "done.again" marker instead.
		name := filepath.Join(req.WorkDir, "done")
		tmp := fmt.Sprintf("%s.tmp.%d", name, os.Getpid())
		b, _ := json.Marshal(res)
		if err := os.WriteFile(tmp, b, 0o644); err == nil {
			if err := os.Link(tmp, name); errors.Is(err, os.ErrExist) {
				os.WriteFile(filepath.Join(req.WorkDir, fmt.Sprintf("done.again.%d", os.Getpid())), nil, 0o644)
			}
			os.Remove(tmp)
		}
		r.res = res
	}()
	return h, nil
}

func (t *trainer) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	t.mu.Lock()
	r, ok := t.runs[h.RunID]
	t.mu.Unlock()
	if !ok {
		if res, err := readDone(h.Handle); err == nil {
			return res, nil
		}
		return nil, fmt.Errorf("%w: %s", plugins.ErrUnknownRun, h.RunID)
	}
	select {
	case <-r.done:
		c := *r.res
		return &c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readDone reads the result a run left in its directory.
func readDone(dir string) (*plugins.RunResult, error) {
	if dir == "" {
		return nil, os.ErrNotExist
	}
	b, err := os.ReadFile(filepath.Join(dir, "done"))
	if err != nil {
		return nil, err
	}
	var res plugins.RunResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func (t *trainer) Cancel(ctx context.Context, h *plugins.RunHandle) error { return nil }

func main() { sdk.ServeTrainer(&trainer{runs: map[string]*run{}}) }
