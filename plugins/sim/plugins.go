package sim

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// Instance is one started simulated plugin. Its methods match the
// runtime's Instance, so a Loader returns it as one.
type Instance struct {
	t *Trainer
	l *LLM
	b *Benchmark
}

// NewTrainer starts a simulated trainer of w.
func NewTrainer(w *World) *Instance {
	return &Instance{t: &Trainer{w: w, runs: map[string]*plugins.RunRequest{}}}
}

// NewLLM starts a simulated LLM plugin of w; plugin is its name in the
// plan, which with a call's kind and model names the role it answers as.
func NewLLM(w *World, plugin string) *Instance { return &Instance{l: &LLM{w: w, plugin: plugin}} }

// NewBenchmark starts a simulated benchmark of w.
func NewBenchmark(w *World) *Instance { return &Instance{b: &Benchmark{w: w}} }

// Trainer returns the trainer, or nil.
func (i *Instance) Trainer() plugins.Trainer {
	if i.t == nil {
		return nil
	}
	return i.t
}

// LLM returns the LLM, or nil.
func (i *Instance) LLM() plugins.LLM {
	if i.l == nil {
		return nil
	}
	return i.l
}

// Benchmark returns the benchmark, or nil.
func (i *Instance) Benchmark() plugins.Benchmark {
	if i.b == nil {
		return nil
	}
	return i.b
}

// Close does nothing: a simulated plugin holds no process.
func (i *Instance) Close() error { return nil }

// Trainer is a simulated trainer: a run measures its task's baseline moved
// by the proposal's true gain, and moves the clock by its hours.
type Trainer struct {
	w    *World
	mu   sync.Mutex
	runs map[string]*plugins.RunRequest
}

// Describe lists the world's knobs.
func (t *Trainer) Describe(context.Context, *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return &plugins.DescribeResponse{Knobs: t.w.Knobs}, nil
}

// Start records the run; it runs when waited on.
func (t *Trainer) Start(_ context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	if req.Update == nil {
		if _, _, err := t.w.task(req.Env, req.Task); err != nil {
			return nil, err
		}
	}
	t.mu.Lock()
	t.runs[req.RunID] = req
	t.mu.Unlock()
	return &plugins.RunHandle{RunID: req.RunID, Handle: "sim:" + req.RunID}, nil
}

// ReadsBatch says the simulated trainer never reads a policy update's
// batch file (an update moves the clock and writes an adapter), so a
// rehearsal does not write hundreds of megabytes nobody reads.
func (t *Trainer) ReadsBatch() bool { return false }

// StartBatch starts runs together (a Slurm executor's path).
func (t *Trainer) StartBatch(ctx context.Context, req *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	out := &plugins.BatchResponse{}
	for _, r := range req.Runs {
		h, err := t.Start(ctx, r)
		if err != nil {
			return out, err
		}
		out.Handles = append(out.Handles, h)
	}
	return out, nil
}

// Wait runs a started run to its result. A run this trainer did not start
// (it was started before a resume) is ErrUnknownRun, as for a restarted
// real trainer.
func (t *Trainer) Wait(_ context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	t.mu.Lock()
	req := t.runs[h.RunID]
	delete(t.runs, h.RunID)
	t.mu.Unlock()
	if req == nil {
		return nil, plugins.ErrUnknownRun
	}
	w := t.w
	if w.OnCall != nil {
		w.OnCall()
	}
	if req.Update != nil {
		// A policy update runs alone, for its loop's hours; the proposer's
		// plugin then loads the adapter it names. Nothing reads a
		// simulated adapter, so none is written: a folder and a file per
		// update were a sixth of a rehearsal's CPU, most of it the file
		// system's.
		hours := w.UpdateHours[strings.SplitN(req.RunID, "/update/", 2)[0]]
		w.Clock.advanceHours(hours)
		return &plugins.RunResult{RunID: req.RunID, Status: plugins.StatusFinished, Seconds: hours * 3600, GPUHours: hours * float64(max(req.GPUs, 1))}, nil
	}
	e, task, err := w.task(req.Env, req.Task)
	if err != nil {
		return nil, err
	}
	hours := max(e.Hours.draw(hash(w.Seed, "hours", req.RunID)), 0)
	slots := max(e.Slots, 1)
	w.Clock.advanceHours(hours / slots)
	res := &plugins.RunResult{RunID: req.RunID, Seconds: hours * 3600, GPUHours: hours * float64(max(req.GPUs, 1))}
	switch {
	case e.Failed > 0 && unit(hash(w.Seed, "failed", req.RunID)) < e.Failed:
		res.Status, res.Reason = plugins.StatusFailed, "simulated infrastructure failure"
		return res, nil
	case e.Infeasible > 0 && key(req.Proposal) != "" && unit(hash(w.Seed, "crash", req.Env, req.Task, key(req.Proposal))) < e.Infeasible:
		res.Status, res.Reason = plugins.StatusInfeasible, "simulated crash"
		return res, nil
	}
	g, err := w.gain(req.Env, req.Task, req.Proposal)
	if err != nil {
		return nil, err
	}
	res.Status, res.Metric = plugins.StatusFinished, task.Baseline+g
	if task.Minimize {
		res.Metric = task.Baseline - g
	}
	return res, nil
}

// Cancel forgets a run.
func (t *Trainer) Cancel(_ context.Context, h *plugins.RunHandle) error {
	t.mu.Lock()
	delete(t.runs, h.RunID)
	t.mu.Unlock()
	return nil
}

// Benchmark lists the world's tasks.
type Benchmark struct{ w *World }

// Tasks lists an environment's tasks with their baselines and scales.
func (b *Benchmark) Tasks(_ context.Context, req *plugins.TasksRequest) (*plugins.TasksResponse, error) {
	e := b.w.Envs[req.Env]
	if e == nil {
		return nil, fmt.Errorf("sim: the world has no environment %q", req.Env)
	}
	out := &plugins.TasksResponse{}
	for name, t := range e.Tasks {
		out.Tasks = append(out.Tasks, plugins.TaskInfo{Name: name, Split: t.Split, Baseline: t.Baseline, Scale: t.Scale, Minimize: t.Minimize})
	}
	return out, nil
}

// LLM is a simulated LLM plugin: it answers each role as the world's Role
// for it says.
type LLM struct {
	w      *World
	plugin string
}

// Complete answers one call and moves the clock by the role's seconds.
func (l *LLM) Complete(_ context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	w := l.w
	ro := w.Roles[RoleKey(l.plugin, req.Role, req.Model)]
	if ro == nil {
		return nil, plugins.WithKind(plugins.ErrConfig, fmt.Errorf("sim: plugin %s serves no %s role of model %q", l.plugin, req.Role, req.Model))
	}
	if w.OnCall != nil {
		w.OnCall()
	}
	w.Clock.advanceHours(ro.Seconds / 3600)
	var out any
	var err error
	switch req.Role {
	case plugins.RolePropose:
		out, err = l.propose(req)
	case plugins.RolePredict:
		out, err = l.predict(ro, req)
	case plugins.RoleBuild, plugins.RoleImplement:
		out, err = l.build(ro, req)
	case plugins.RoleSummarize:
		var in payload.SummarizeRequest
		if err = input(req, &in); err == nil {
			out = payload.SummarizeResponse{Summary: "a change of " + in.Proposal.Mechanism}
		}
	case plugins.RoleCritic:
		out, err = l.critique(ro, req)
	default:
		err = fmt.Errorf("sim: unknown role kind %q", req.Role)
	}
	if err != nil {
		return nil, err
	}
	b, err := encode(out)
	if err != nil {
		return nil, err
	}
	return &plugins.CompleteResponse{Payload: b, Output: out}, nil
}

// input reads a call's structured input: the value itself when the runtime
// handed it over in process, else its JSON.
func input[T any](req *plugins.CompleteRequest, dst *T) error {
	switch v := req.Input.(type) {
	case T:
		*dst = v
		return nil
	case *T:
		*dst = *v
		return nil
	}
	// Decoded into a value of its own, so that dst, which the caller
	// holds, does not escape to the heap on the in-process path.
	var d T
	if err := payload.Decode(req.Payload, &d); err != nil {
		return err
	}
	*dst = d
	return nil
}

func (l *LLM) propose(req *plugins.CompleteRequest) (payload.ProposeResponse, error) {
	var in payload.ProposeRequest
	if err := input(req, &in); err != nil {
		return payload.ProposeResponse{}, err
	}
	knobs := in.Knobs
	if len(knobs) == 0 {
		knobs = l.w.Knobs
	}
	out := payload.ProposeResponse{}
	n := max(in.N, 1)
	for i := 0; i < n; i++ {
		h := hash(req.Seed, "propose", strconv.Itoa(i))
		p := plugins.Proposal{Edits: map[string]string{}}
		if in.Parent != nil {
			p.Mechanism = in.Parent.Mechanism
		}
		edits := 1 + int(h%2)
		for e := 0; e < edits && len(knobs) > 0; e++ {
			h = mix(h + uint64(e) + 1)
			k := knobs[h%uint64(len(knobs))]
			v := strconv.Itoa(int((h >> 20) % 8))
			if len(k.Values) > 0 {
				v = k.Values[(h>>20)%uint64(len(k.Values))]
			}
			p.Edits[k.Name] = v
			p.Mechanism = k.Mechanism
		}
		p.ID = "sim-" + strconv.FormatUint(h>>32, 16)
		p.Text = "set " + key(p)
		out.Proposals = append(out.Proposals, p)
	}
	return out, nil
}

func (l *LLM) predict(ro *Role, req *plugins.CompleteRequest) (payload.PredictResponse, error) {
	var in payload.PredictRequest
	if err := input(req, &in); err != nil {
		return payload.PredictResponse{}, err
	}
	g, err := l.w.gain(in.Env, in.Task, in.Proposal)
	if err != nil {
		return payload.PredictResponse{}, err
	}
	_, t, _ := l.w.task(in.Env, in.Task)
	g += ro.Noise * t.Scale * normal(hash(req.Seed, "noise"))
	return payload.PredictResponse{PredictedGain: g, Confidence: 0.5}, nil
}

func (l *LLM) build(ro *Role, req *plugins.CompleteRequest) (payload.ImplementResponse, error) {
	var in payload.ImplementRequest
	if err := input(req, &in); err != nil {
		return payload.ImplementResponse{}, err
	}
	// The answer holds a copy of the request's edits, as a decoded answer
	// would (CompleteResponse.Output).
	p := in.Proposal
	p.Edits = maps.Clone(p.Edits)
	if ro.BuildFailures > 0 && unit(hash(req.Seed, "build")) < ro.BuildFailures {
		return payload.ImplementResponse{Proposal: p, Infeasible: true, Reason: "simulated build failure"}, nil
	}
	return payload.ImplementResponse{Proposal: p}, nil
}

func (l *LLM) critique(ro *Role, req *plugins.CompleteRequest) (payload.CritiqueResponse, error) {
	var in payload.CritiqueRequest
	if err := input(req, &in); err != nil {
		return payload.CritiqueResponse{}, err
	}
	w := l.w
	cand := in.Env + "\x00" + in.Task + "\x00" + key(in.Parent) + "\x00" + key(in.Child)
	improve, lose := payload.LabelImprove, payload.LabelLose
	if in.Labels == payload.Labels5 {
		improve, lose = payload.LabelSmallWin, payload.Label5Lose
	}
	if ro.Unsure > 0 && unit(hash(w.Seed, "unsure", cand)) < ro.Unsure {
		// Unsure: the votes split evenly between improve and lose.
		w.vmu.Lock()
		if w.votes == nil {
			w.votes = map[string]int{}
		}
		n := w.votes[cand]
		w.votes[cand] = n + 1
		w.vmu.Unlock()
		if n%2 == 0 {
			return payload.CritiqueResponse{Label: improve, Reason: "unsure"}, nil
		}
		return payload.CritiqueResponse{Label: lose, Reason: "unsure"}, nil
	}
	if _, _, err := w.task(in.Env, in.Task); err != nil {
		// A labelled pair of a task outside the world (a static critic
		// evaluation judges pairs from elsewhere): the world knows no gain
		// for it, so the verdict is a coin drawn from the pair.
		if unit(hash(w.Seed, "pair", cand)) < 0.5 {
			return payload.CritiqueResponse{Label: improve, Reason: "a pair outside the world"}, nil
		}
		return payload.CritiqueResponse{Label: lose, Reason: "a pair outside the world"}, nil
	}
	gc, err := w.gain(in.Env, in.Task, in.Child)
	if err != nil {
		return payload.CritiqueResponse{}, err
	}
	gp, err := w.gain(in.Env, in.Task, in.Parent)
	if err != nil {
		return payload.CritiqueResponse{}, err
	}
	_, t, _ := w.task(in.Env, in.Task)
	d := (gc - gp) / t.Scale
	right := unit(hash(w.Seed, "right", cand)) < ro.Accuracy
	better := d > 0
	if !right {
		better = !better
		d = -d
	}
	label := lose
	if better {
		label = improve
		if in.Labels == payload.Labels5 {
			switch {
			case d > 1:
				label = payload.LabelBigWin
			case d > 0.4:
				label = payload.LabelMediumWin
			}
		}
	}
	return payload.CritiqueResponse{Label: label}, nil
}

// Update applies a policy step: the state counts the updates. A proposer
// whose real plugin cannot train answers ErrUnsupported, as it would.
func (l *LLM) Update(_ context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	if a := req.Adapter; a != nil {
		// An adapter trained by an update command: a served model loads
		// it and names it in its state, as the openai plugin does.
		st, err := json.Marshal(map[string]string{"adapter": a.Name, "path": a.Path})
		if err != nil {
			return nil, err
		}
		return &plugins.UpdateResponse{State: st}, nil
	}
	ro := l.w.Roles[RoleKey(l.plugin, plugins.RolePropose, req.Model)]
	if ro == nil || !ro.Trains {
		return nil, plugins.ErrUnsupported
	}
	var n uint64
	if len(req.State) == 8 {
		n = binary.LittleEndian.Uint64(req.State)
	}
	st := binary.LittleEndian.AppendUint64(nil, n+1)
	return &plugins.UpdateResponse{State: st, Stats: map[string]float64{"samples": float64(len(req.Samples))}}, nil
}

// ReadsInput says the simulated LLM reads a call's Input, so the runtime
// need not encode it.
func (l *LLM) ReadsInput() bool { return true }
