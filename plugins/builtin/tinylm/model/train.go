package model

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
)

// Shards is the fixed number of pieces a batch is split into for parallel
// gradient computation. It is a constant, not the CPU count, so the order
// of floating-point sums (and so the result) never depends on the machine.
const Shards = 4

// DefaultSteps is the number of optimiser steps of a run.
const DefaultSteps = 2000

// DefaultEvalPositions caps how many validation positions are scored.
const DefaultEvalPositions = 4096

// Config is one training run.
type Config struct {
	Hyper
	Corpus *Corpus
	Steps  int
	Seed   uint64
	// EvalPositions caps the validation positions scored (0: the
	// default): fewer score faster and noisier.
	EvalPositions int
	// LogEvery, when positive, records the training loss every LogEvery steps.
	LogEvery int
}

// Result is a finished run.
type Result struct {
	// ValBPB is the validation loss in bits per byte (lower is better).
	ValBPB float64
	// TrainBPB is the mean training loss over the last tenth of the steps.
	TrainBPB float64
	Params   int
	Steps    int
	Log      []string
}

// ErrDiverged reports a run whose loss became NaN or infinite.
var ErrDiverged = errors.New("training diverged")

// Validate checks a setup; its error is the reason a proposal is infeasible.
func (h Hyper) Validate() error {
	var errs []string
	if !(h.LearningRate > 0) {
		errs = append(errs, "learning_rate must be positive")
	}
	switch h.Optimizer {
	case "sgd", "momentum", "adam":
	default:
		errs = append(errs, fmt.Sprintf("unknown optimizer %q", h.Optimizer))
	}
	switch h.Schedule {
	case "constant", "cosine":
	default:
		errs = append(errs, fmt.Sprintf("unknown lr_schedule %q", h.Schedule))
	}
	if h.BatchSize < Shards || h.BatchSize%Shards != 0 {
		errs = append(errs, fmt.Sprintf("batch_size must be a multiple of %d", Shards))
	}
	if h.Warmup < 0 || h.WeightDecay < 0 || h.InitScale <= 0 {
		errs = append(errs, "warmup, weight_decay and init_scale must not be negative")
	}
	if errs != nil {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// lrAt is the learning rate of a step: linear warm-up, then constant or
// cosine decay to zero over the remaining steps.
func (c *Config) lrAt(step int) float64 {
	lr := c.LearningRate
	if step < c.Warmup {
		return lr * float64(step+1) / float64(c.Warmup)
	}
	if c.Schedule == "cosine" {
		span := c.Steps - c.Warmup
		if span > 0 {
			lr *= 0.5 * (1 + math.Cos(math.Pi*float64(step-c.Warmup)/float64(span)))
		}
	}
	return lr
}

// Train runs one training and scores the validation split. It is
// deterministic: the same Config gives bit-identical results.
func Train(ctx context.Context, c Config) (*Result, error) {
	res, _, err := train(ctx, c)
	return res, err
}

// train is Train that also returns the trained network (nil on error), so
// tests can pin every weight.
func train(ctx context.Context, c Config) (*Result, *Net, error) {
	if err := c.Hyper.Validate(); err != nil {
		return nil, nil, err
	}
	if c.Steps < 1 {
		return nil, nil, fmt.Errorf("steps must be positive, got %d", c.Steps)
	}
	corp := c.Corpus
	if len(corp.Train) <= c.Context+1 || len(corp.Val) <= c.Context+1 {
		return nil, nil, fmt.Errorf("corpus %q too short for context %d", corp.Name, c.Context)
	}
	net, err := NewNet(Shape{Vocab: len(corp.Vocab), Context: c.Context, Embed: c.Embed, Width: c.Width, Depth: c.Depth, Activation: c.Activation})
	if err != nil {
		return nil, nil, err
	}
	r := newRNG(c.Seed)
	net.Init(r, c.InitScale)
	np := len(net.P)
	opt := newOptimizer(c.Optimizer, np)

	grads := make([][]float64, Shards)
	works := make([]*work, Shards)
	losses := make([]float64, Shards)
	for s := range grads {
		grads[s] = make([]float64, np)
		works[s] = net.newWork()
	}
	g := make([]float64, np)
	pos := make([]int, c.BatchSize)
	per := c.BatchSize / Shards
	res := &Result{Params: np}
	tail := max(1, c.Steps/10)
	tailLoss := 0.0
	logLoss := 0.0
	pool := newShardPool(func(s int) {
		gs := grads[s]
		clear(gs)
		l := 0.0
		for _, p := range pos[s*per : (s+1)*per] {
			l += net.grad(corp.Train[p-c.Context:p], int(corp.Train[p]), gs, works[s])
		}
		losses[s] = l
	})
	defer pool.stop()

	for step := 0; step < c.Steps; step++ {
		if step%32 == 0 && ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		for i := range pos {
			pos[i] = c.Context + r.intn(len(corp.Train)-c.Context)
		}
		pool.run()
		loss := 0.0
		inv := 1 / float64(c.BatchSize)
		for s := range Shards {
			loss += losses[s]
		}
		loss *= inv
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return nil, nil, fmt.Errorf("%w: loss %v at step %d", ErrDiverged, loss, step)
		}
		sumShards(g, grads, inv)
		opt.step(net.P, g, net.decay, c.lrAt(step), c.WeightDecay)
		if step >= c.Steps-tail {
			tailLoss += loss
		}
		if c.LogEvery > 0 {
			logLoss += loss
			if (step+1)%c.LogEvery == 0 {
				res.Log = append(res.Log, fmt.Sprintf("step %d train_bpb %.4f", step+1, logLoss/float64(c.LogEvery)/math.Ln2))
				logLoss = 0
			}
		}
	}
	res.Steps = c.Steps
	res.TrainBPB = tailLoss / float64(tail) / math.Ln2
	res.ValBPB = evaluate(net, corp.Val, works, cmp.Or(c.EvalPositions, DefaultEvalPositions))
	// Far worse than guessing uniformly means the weights blew up even if
	// no value overflowed.
	if limit := 2 * math.Log2(float64(len(corp.Vocab))); !(res.ValBPB <= limit) {
		return nil, nil, fmt.Errorf("%w: validation loss %.3g bits per byte, worse than twice the uniform guess (%.3g)", ErrDiverged, res.ValBPB, limit)
	}
	return res, net, nil
}

// shardPool runs each step's Shards gradient computations on goroutines
// that live for the whole run, so a step starts no goroutine and
// allocates nothing.
type shardPool struct {
	start []chan struct{}
	done  chan struct{}
}

func newShardPool(work func(s int)) *shardPool {
	p := &shardPool{done: make(chan struct{}, Shards)}
	for s := range Shards {
		ch := make(chan struct{}, 1)
		p.start = append(p.start, ch)
		go func() {
			for range ch {
				work(s)
				p.done <- struct{}{}
			}
		}()
	}
	return p
}

// run does one step's work on every shard and returns when all is done.
func (p *shardPool) run() {
	for _, ch := range p.start {
		ch <- struct{}{}
	}
	for range p.start {
		<-p.done
	}
}

// stop ends the goroutines; the pool is not used again.
func (p *shardPool) stop() {
	for _, ch := range p.start {
		close(ch)
	}
}

// evaluate scores up to positions evenly spaced validation positions, in
// Shards fixed pieces summed in order.
func evaluate(net *Net, val []uint8, works []*work, positions int) float64 {
	c := net.Context
	n := len(val) - c
	stride := max(1, n/positions)
	var ps []int
	for p := c; p < len(val); p += stride {
		ps = append(ps, p)
	}
	sums := make([]float64, Shards)
	var wg sync.WaitGroup
	for s := range Shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := s; i < len(ps); i += Shards {
				p := ps[i]
				sums[s] += net.Loss(val[p-c:p], int(val[p]), works[s])
			}
		}()
	}
	wg.Wait()
	total := 0.0
	for _, v := range sums {
		total += v
	}
	return total / float64(len(ps)) / math.Ln2
}

// optimizer updates parameters from a gradient. Weight decay is decoupled
// (p -= lr*wd*p on weights), as in AdamW.
type optimizer struct {
	kind   string
	m, v   []float64
	b1t    float64
	b2t    float64
	beta1  float64
	beta2  float64
	eps    float64
	moment float64
}

func newOptimizer(kind string, n int) *optimizer {
	o := &optimizer{kind: kind, beta1: 0.9, beta2: 0.999, eps: 1e-8, moment: 0.9, b1t: 1, b2t: 1}
	switch kind {
	case "momentum":
		o.m = make([]float64, n)
	case "adam":
		o.m = make([]float64, n)
		o.v = make([]float64, n)
	}
	return o
}

func (o *optimizer) step(p, g []float64, decay []bool, lr, wd float64) {
	g, decay = g[:len(p)], decay[:len(p)]
	if wd > 0 {
		f := lr * wd
		for i, d := range decay {
			if d {
				p[i] -= f * p[i]
			}
		}
	}
	switch o.kind {
	case "sgd":
		for i, gi := range g {
			p[i] -= lr * gi
		}
	case "momentum":
		m, mu := o.m[:len(p)], o.moment
		for i, gi := range g {
			mi := mu*m[i] + gi
			m[i] = mi
			p[i] -= lr * mi
		}
	case "adam":
		o.b1t *= o.beta1
		o.b2t *= o.beta2
		c1 := 1 / (1 - o.b1t)
		c2 := 1 / (1 - o.b2t)
		b1, b2, eps := o.beta1, o.beta2, o.eps
		m, v := o.m[:len(p)], o.v[:len(p)]
		for i, gi := range g {
			mi := b1*m[i] + (1-b1)*gi
			vi := b2*v[i] + (1-b2)*gi*gi
			m[i], v[i] = mi, vi
			p[i] -= lr * (mi * c1) / (math.Sqrt(vi*c2) + eps)
		}
	}
}

// sumShards sets g to the mean gradient: the shards' gradients summed in
// shard order, times inv, in one pass.
func sumShards(g []float64, grads [][]float64, inv float64) {
	if len(grads) == 4 {
		g0, g1, g2, g3 := grads[0][:len(g)], grads[1][:len(g)], grads[2][:len(g)], grads[3][:len(g)]
		for i := range g {
			v := g0[i]
			v += g1[i]
			v += g2[i]
			v += g3[i]
			g[i] = v * inv
		}
		return
	}
	g0 := grads[0][:len(g)]
	rest := grads[1:]
	for i := range g {
		v := g0[i]
		for _, gs := range rest {
			v += gs[i]
		}
		g[i] = v * inv
	}
}
