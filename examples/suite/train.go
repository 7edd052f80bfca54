// This file and model.go are the scaffold's edit surface (suite.json's
// editable): the hyperparameters, the training loop and the model. The
// harness (main.go), the data (data.go) and the evaluator (eval.go) are
// not, so a change cannot alter what the metric measures.

package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Hyper is every setting a proposal may change.
type Hyper struct {
	LR         float64 `json:"lr"`
	Epochs     int     `json:"epochs"`
	Batch      int     `json:"batch"`
	Hidden     int     `json:"hidden"`
	Activation string  `json:"activation"` // tanh | relu
	InitScale  float64 `json:"init_scale"` // times 1/sqrt(fan-in)
	L2         float64 `json:"l2"`
	Schedule   string  `json:"schedule"` // constant | cosine | step
	Features   string  `json:"features"` // raw | poly2 (squares and products added)
}

// The baseline's numeric settings, one a line, so a code change of one is
// a one-line patch.
const (
	defaultLR        = 0.03
	defaultEpochs    = 60
	defaultBatch     = 32
	defaultHidden    = 4
	defaultInitScale = 1.0
	defaultL2        = 0.0
)

// Defaults are the baseline: a narrow net trained briefly at a timid rate.
func Defaults() Hyper {
	return Hyper{LR: defaultLR, Epochs: defaultEpochs, Batch: defaultBatch, Hidden: defaultHidden, Activation: "tanh",
		InitScale: defaultInitScale, L2: defaultL2, Schedule: "constant", Features: "raw"}
}

func (h Hyper) check() error {
	switch {
	case !(h.LR > 0 && h.LR <= 10):
		return fmt.Errorf("lr = %v: want 0 < lr <= 10", h.LR)
	case h.Epochs < 1 || h.Epochs > 2000:
		return fmt.Errorf("epochs = %d: want 1..2000", h.Epochs)
	case h.Batch < 1 || h.Batch > 4096:
		return fmt.Errorf("batch = %d: want 1..4096", h.Batch)
	case h.Hidden < 0 || h.Hidden > 256:
		return fmt.Errorf("hidden = %d: want 0..256", h.Hidden)
	case h.Activation != "tanh" && h.Activation != "relu":
		return fmt.Errorf("activation = %q: want tanh or relu", h.Activation)
	case !(h.InitScale > 0 && h.InitScale <= 10):
		return fmt.Errorf("init_scale = %v: want 0 < init_scale <= 10", h.InitScale)
	case !(h.L2 >= 0 && h.L2 <= 1):
		return fmt.Errorf("l2 = %v: want 0..1", h.L2)
	case h.Schedule != "constant" && h.Schedule != "cosine" && h.Schedule != "step":
		return fmt.Errorf("schedule = %q: want constant, cosine or step", h.Schedule)
	case h.Features != "raw" && h.Features != "poly2":
		return fmt.Errorf("features = %q: want raw or poly2", h.Features)
	}
	return nil
}

// Train fits a model with h on the training rows X, Y (Y is 0 or 1 when
// classify) and returns it, logging progress to log. It never sees the
// validation rows.
func Train(X [][]float64, Y []float64, classify bool, h Hyper, seed uint64, log io.Writer) (Predictor, error) {
	if err := h.check(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	feat := func(x []float64) []float64 { return features(x, h.Features) }
	trainX := mapRows(X, feat)
	m := newMLP(len(trainX[0]), h, rng)
	order := make([]int, len(trainX))
	for i := range order {
		order[i] = i
	}
	for ep := range h.Epochs {
		lr := h.LR * schedule(h.Schedule, ep, h.Epochs)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for s := 0; s < len(order); s += h.Batch {
			m.step(trainX, Y, order[s:min(s+h.Batch, len(order))], lr, h.L2, classify)
		}
		if (ep+1)%max(h.Epochs/4, 1) == 0 || ep+1 == h.Epochs {
			tl := m.loss(trainX, Y, classify)
			if math.IsNaN(tl) || math.IsInf(tl, 0) || tl > 1e6 {
				return nil, fmt.Errorf("the training loss diverged at epoch %d (lr = %v)", ep+1, h.LR)
			}
			fmt.Fprintf(log, "epoch %d train_loss=%.6f\n", ep+1, tl)
		}
	}
	return featured{m, h.Features}, nil
}

// featured is a trained model with its input features.
type featured struct {
	m    *mlp
	kind string
}

func (f featured) Predict(x []float64) float64 {
	out, _ := f.m.forward(features(x, f.kind), make([]float64, f.m.hidden))
	return out
}

// schedule is the learning-rate multiplier at epoch ep of n.
func schedule(kind string, ep, n int) float64 {
	switch kind {
	case "cosine":
		return 0.5 * (1 + math.Cos(math.Pi*float64(ep)/float64(n)))
	case "step":
		return math.Pow(0.3, float64(3*ep/n))
	}
	return 1
}

func features(x []float64, kind string) []float64 {
	if kind != "poly2" {
		return x
	}
	out := append([]float64{}, x...)
	for i := range x {
		for j := i; j < len(x); j++ {
			out = append(out, x[i]*x[j])
		}
	}
	return out
}

func mapRows(rows [][]float64, f func([]float64) []float64) [][]float64 {
	out := make([][]float64, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}
