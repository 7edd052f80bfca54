package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/sdk"
)

func main() {
	sdk.ServeTrainer(echoTrainer{})
}

// knobs maps each knob to the loss change of each of its values; the first
// value is the default.
var knobs = map[string]struct {
	mechanism string
	values    []string
	effect    []float64
}{
	"lr":           {"optimizer", []string{"3e-4", "1e-4", "1e-3"}, []float64{0, 0.04, -0.03}},
	"warmup_steps": {"schedule", []string{"100", "0", "500"}, []float64{0, 0.02, -0.01}},
	"dropout":      {"regularisation", []string{"0.0", "0.1"}, []float64{0, -0.015}},
}

type echoTrainer struct{}

// Describe lists the knobs, sorted so the answer is stable.
func (echoTrainer) Describe(context.Context, *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	names := make([]string, 0, len(knobs))
	for n := range knobs {
		names = append(names, n)
	}
	sort.Strings(names)
	resp := &plugins.DescribeResponse{}
	for _, n := range names {
		k := knobs[n]
		resp.Knobs = append(resp.Knobs, plugins.Knob{Name: n, Mechanism: k.mechanism, Default: k.values[0], Values: k.values})
	}
	return resp, nil
}

// Start computes the result at once and encodes it in the handle, so Wait
// needs no memory: a restarted plugin process (or a resumed experiment)
// can still wait on a handle from before. Starting the same RunID twice
// gives the same handle, as the contract asks.
func (echoTrainer) Start(_ context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	baseline := 3.0
	if b, ok := req.Config["baseline"].(float64); ok {
		baseline = b
	}
	loss := baseline
	for name, value := range req.Proposal.Edits {
		k, ok := knobs[name]
		if !ok {
			return &plugins.RunHandle{RunID: req.RunID, Handle: "infeasible:unknown knob " + strconv.Quote(name)}, nil
		}
		i := indexOf(k.values, value)
		if i < 0 {
			return &plugins.RunHandle{RunID: req.RunID, Handle: fmt.Sprintf("infeasible:knob %s has no value %q", name, value)}, nil
		}
		loss += k.effect[i]
	}
	return &plugins.RunHandle{RunID: req.RunID, Handle: "loss:" + strconv.FormatFloat(loss, 'g', -1, 64)}, nil
}

// Wait decodes the handle.
func (echoTrainer) Wait(_ context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	if reason, ok := strings.CutPrefix(h.Handle, "infeasible:"); ok {
		return &plugins.RunResult{RunID: h.RunID, Status: plugins.StatusInfeasible, Reason: reason}, nil
	}
	s, ok := strings.CutPrefix(h.Handle, "loss:")
	if !ok {
		return nil, fmt.Errorf("echotrainer: %q is not a handle this plugin made", h.Handle)
	}
	loss, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("echotrainer: bad handle %q: %v", h.Handle, err)
	}
	return &plugins.RunResult{RunID: h.RunID, Status: plugins.StatusFinished, Metric: loss}, nil
}

// Cancel has nothing to stop: runs finish inside Start.
func (echoTrainer) Cancel(context.Context, *plugins.RunHandle) error { return nil }

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
