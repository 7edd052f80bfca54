package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// Replay makes a run take every LLM answer from an earlier run's journal
// instead of asking an LLM plugin: calls are matched by their key (the
// call's place in the plan: phase, task, step, index) and role, and a call
// whose request differs from the journaled one stops the run with an
// error naming the call and what changed. Policy updates are taken from the
// journal too, since the answers they shape are. No LLM plugin is started.
//
// Real runs are trained again, unless Runs is set: then each run's result
// is the earlier run's, and no trainer plugin is started either.
type Replay struct {
	// Dir is the earlier run's directory (its journal is only read).
	Dir string
	// Runs takes real runs' results from the earlier run's journal too.
	Runs bool
}

// metaReplay keeps a replayed run's Replay, so that a resume replays too
// (and never asks an LLM what the earlier run answered).
const metaReplay = "replay"

// replaySource is the earlier run's journal, opened read-only.
type replaySource struct {
	id   string
	j    *journal.Journal
	runs bool
}

// openReplay opens the journal a run replays: opts.Replay's, or on resume
// the one the run recorded when it began. A journal whose calls record no
// requests (written before replay existed, or by an in-process model that
// read its input unencoded) cannot be matched and is refused.
func openReplay(opts Options, j *journal.Journal) (*replaySource, error) {
	rp := opts.Replay
	if opts.Resume {
		var was Replay
		if j.Meta(metaReplay, &was) && was.Dir != "" {
			if rp != nil && (rp.Dir != was.Dir || rp.Runs != was.Runs) {
				return nil, fmt.Errorf("run %s replays %s (runs from the journal: %t); resume it as it began", opts.ID, was.Dir, was.Runs)
			}
			rp = &was
		}
	}
	if rp == nil {
		return nil, nil
	}
	src, err := journal.OpenReadOnly(filepath.Join(rp.Dir, JournalFile))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	s := &replaySource{id: filepath.Base(rp.Dir), j: src, runs: rp.Runs}
	if err := s.check(); err != nil {
		src.Close()
		return nil, err
	}
	if opts.Resume {
		return s, nil // adopted when the run began
	}
	if err := j.SetMeta(metaReplay, rp); err != nil {
		src.Close()
		return nil, err
	}
	if err := s.adopt(j); err != nil {
		src.Close()
		return nil, err
	}
	return s, nil
}

// check refuses a journal without the requests of its LLM calls.
func (s *replaySource) check() error {
	calls, err := s.j.Events(journal.KindCall)
	if err != nil {
		return fmt.Errorf("replay: run %s: %w", s.id, err)
	}
	n := 0
	for _, e := range calls {
		var c struct {
			Role string          `json:"role"`
			Req  json.RawMessage `json:"req"`
		}
		if json.Unmarshal(e.Data, &c) != nil || c.Role == "" {
			continue // not an LLM call (a trainer's description, a benchmark's tasks)
		}
		n++
		if len(c.Req) == 0 {
			return fmt.Errorf("replay: run %s cannot be replayed: its journal records the answers of its LLM calls but not their requests "+
				"(it was written by an older assay, or by a rehearsal's in-process model), so a call cannot be matched to this run's; "+
				"run the spec again with this assay to make a journal that replays", s.id)
		}
	}
	if n == 0 {
		return fmt.Errorf("replay: run %s made no LLM call: there is nothing to replay", s.id)
	}
	return nil
}

// adopt hands the earlier run's policy updates (and, when real runs are
// replayed, its trainers' knob descriptions) to the new run's journal, where
// the code that resumes a run takes them from: the new run makes no update
// call and trains no update.
func (s *replaySource) adopt(j *journal.Journal) error {
	kinds := []string{journal.KindPolicy}
	if s.runs {
		kinds = append(kinds, journal.KindCall)
	}
	for _, kind := range kinds {
		evs, err := s.j.Events(kind)
		if err != nil {
			return fmt.Errorf("replay: run %s: %w", s.id, err)
		}
		for _, e := range evs {
			if kind == journal.KindCall && !strings.HasPrefix(e.Key, "describe/") {
				continue
			}
			if err := j.Adopt(kind, e.Key, e.Data); err != nil {
				return err
			}
		}
	}
	return j.Flush()
}

func (s *replaySource) close() { s.j.Close() }

// loader starts no LLM plugin: an LLM instance of a replay answers from
// nothing (every call is answered from the journal before it reaches one).
// With real runs replayed, trainers are the journal's too; otherwise the
// trainer is the spec's, kept from running a policy update the earlier run
// did not journal.
func (s *replaySource) loader(l Loader) Loader { return replayLoader{s: s, l: l} }

type replayLoader struct {
	s *replaySource
	l Loader
}

func (rl replayLoader) replaces(p *plan.Plugin) bool {
	return p.Kind == plugins.KindLLM || p.Kind == plugins.KindTrainer && rl.s.runs
}

func (rl replayLoader) replayed() string { return rl.s.id }

func (rl replayLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	switch {
	case p.Kind == plugins.KindLLM:
		return &replayInst{l: replayLLM{rl.s}}, nil
	case p.Kind == plugins.KindTrainer && rl.s.runs:
		return &replayInst{t: replayTrainer{rl.s}}, nil
	}
	inst, err := rl.l.Open(ctx, p)
	if err != nil || p.Kind != plugins.KindTrainer {
		return inst, err
	}
	return &guardedInst{Instance: inst, s: rl.s}, nil
}

// errNotJournaled is what a replay's plugins answer for what the earlier
// run did not journal.
func (s *replaySource) errNotJournaled(what string) error {
	return plugins.WithKind(errPermanent, fmt.Errorf("replay of run %s: %s is not in its journal (the run stopped before it, or this spec asks for more); a replay makes no LLM call and trains no policy update", s.id, what))
}

type replayInst struct {
	l plugins.LLM
	t plugins.Trainer
}

func (i *replayInst) Trainer() plugins.Trainer     { return i.t }
func (i *replayInst) LLM() plugins.LLM             { return i.l }
func (i *replayInst) Benchmark() plugins.Benchmark { return nil }
func (i *replayInst) Close() error                 { return nil }

// replayLLM is a replay's LLM plugin: nothing reaches it but an update the
// journal does not hold, which it answers as an LLM that cannot be trained.
type replayLLM struct{ s *replaySource }

func (m replayLLM) Complete(context.Context, *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	return nil, m.s.errNotJournaled("an LLM call")
}

func (m replayLLM) Update(context.Context, *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, fmt.Errorf("%w: replay of run %s: no policy update is journaled here", plugins.ErrUnsupported, m.s.id)
}

// replayTrainer answers each real run with the earlier run's result for
// the same run key.
type replayTrainer struct{ s *replaySource }

func (t replayTrainer) Describe(context.Context, *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return nil, plugins.ErrUnsupported // the descriptions were adopted
}

func (t replayTrainer) Start(_ context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	if run, ok := t.s.j.Run(req.RunID); !ok || run.Result == nil || req.Update != nil {
		return nil, t.s.errNotJournaled("the result of real run " + req.RunID)
	}
	return &plugins.RunHandle{RunID: req.RunID, Handle: "replay:" + t.s.id}, nil
}

func (t replayTrainer) Wait(_ context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	run, ok := t.s.j.Run(h.RunID)
	if !ok || run.Result == nil {
		return nil, t.s.errNotJournaled("the result of real run " + h.RunID)
	}
	res := *run.Result
	res.RunID = h.RunID
	return &res, nil
}

func (t replayTrainer) Cancel(context.Context, *plugins.RunHandle) error { return nil }

// guardedInst is a trainer plugin of a replay that trains real runs again:
// a policy update job reaches it only when the journal holds none, and is
// refused, since what it would train is the LLM's.
type guardedInst struct {
	Instance
	s *replaySource
}

func (g *guardedInst) Trainer() plugins.Trainer {
	t := g.Instance.Trainer()
	if t == nil {
		return nil
	}
	return guardedTrainer{Trainer: t, s: g.s}
}

// Alive passes the plugin's own answer on, for supervision.
func (g *guardedInst) Alive() bool {
	a, ok := g.Instance.(interface{ Alive() bool })
	return !ok || a.Alive()
}

type guardedTrainer struct {
	plugins.Trainer
	s *replaySource
}

func (g guardedTrainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	if req.Update != nil {
		return nil, g.s.errNotJournaled("policy update " + req.RunID)
	}
	return g.Trainer.Start(ctx, req)
}

func (g guardedTrainer) StartBatch(ctx context.Context, req *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	bs, ok := g.Trainer.(plugins.BatchStarter)
	if !ok {
		return nil, plugins.ErrUnsupported
	}
	for _, r := range req.Runs {
		if r.Update != nil {
			return nil, g.s.errNotJournaled("policy update " + r.RunID)
		}
	}
	return bs.StartBatch(ctx, req)
}
