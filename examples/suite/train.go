// Command train is the example task suite's research scaffold: a small
// neural network (a one-hidden-layer MLP, or a linear model with hidden = 0)
// trained for real on the CPU, on one of four deterministic synthetic tasks
// in two domains, in well under a second each, with the standard library
// alone, so a fresh machine runs it with no download.
//
//	go run ./examples/suite -task spirals -config overrides.json
//
// The hyperparameters (learning rate, schedule, epochs, width, activation,
// initialisation, L2, input features) have deliberately plain defaults that
// a change can improve; an overrides file (JSON, knob name to value: what
// Assay's command trainer writes in knob mode) sets any of them, and so can
// a code change to this file. The last line of stdout is the metric:
//
//	val_loss=0.123456
//
// the task's loss on its own validation split (binary cross-entropy for a
// classification task, mean squared error for a regression task; lower is
// better). A setup that cannot train (an unknown knob, a bad value, a loss
// that diverges) exits with code 3, which the suite's spec marks infeasible.
// suite.json lists the tasks with their bounds and baselines.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// exitInfeasible is the exit code the spec's infeasible_exit_codes names.
const exitInfeasible = 3

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

// Defaults are the baseline: a narrow net trained briefly at a timid rate.
func Defaults() Hyper {
	return Hyper{LR: 0.03, Epochs: 60, Batch: 32, Hidden: 4, Activation: "tanh", InitScale: 1, Schedule: "constant", Features: "raw"}
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

// ReadOverrides applies a JSON overrides file to h; an unknown key is an
// error, so a misspelt knob never trains the baseline silently.
func ReadOverrides(r io.Reader, h *Hyper) error {
	dec := json.NewDecoder(io.LimitReader(r, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("overrides: %v", err)
	}
	return h.check()
}

func main() {
	task := flag.String("task", "", "task to train: "+strings.Join(TaskNames(), ", "))
	config := flag.String("config", os.Getenv("ASSAY_CONFIG"), "JSON overrides file (default $ASSAY_CONFIG)")
	seedDefault, _ := strconv.ParseUint(os.Getenv("ASSAY_SEED"), 10, 64)
	seed := flag.Uint64("seed", max(seedDefault, 1), "training seed: initialisation and shuffling (default $ASSAY_SEED, else 1)")
	flag.Parse()

	h := Defaults()
	if *config != "" {
		f, err := os.Open(*config)
		if err != nil {
			fail(1, err)
		}
		err = ReadOverrides(f, &h)
		f.Close()
		if err != nil {
			fail(exitInfeasible, err)
		}
	}
	ds, ok := Load(*task)
	if !ok {
		fail(2, fmt.Errorf("-task %q: want one of %s", *task, strings.Join(TaskNames(), ", ")))
	}
	loss, err := Train(ds, h, *seed, os.Stdout)
	if err != nil {
		fail(exitInfeasible, err)
	}
	fmt.Printf("val_loss=%.6f\n", loss)
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "train:", err)
	os.Exit(code)
}

// Train fits a model with h on ds's training split and returns its loss on
// the validation split, logging progress to log.
func Train(ds *Dataset, h Hyper, seed uint64, log io.Writer) (float64, error) {
	if err := h.check(); err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	feat := func(x []float64) []float64 { return features(x, h.Features) }
	trainX := mapRows(ds.TrainX, feat)
	valX := mapRows(ds.ValX, feat)
	m := newMLP(len(trainX[0]), h, rng)
	order := make([]int, len(trainX))
	for i := range order {
		order[i] = i
	}
	for ep := range h.Epochs {
		lr := h.LR * schedule(h.Schedule, ep, h.Epochs)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for s := 0; s < len(order); s += h.Batch {
			m.step(trainX, ds.TrainY, order[s:min(s+h.Batch, len(order))], lr, h.L2, ds.Classify)
		}
		if (ep+1)%max(h.Epochs/4, 1) == 0 || ep+1 == h.Epochs {
			tl := m.loss(trainX, ds.TrainY, ds.Classify)
			if math.IsNaN(tl) || math.IsInf(tl, 0) || tl > 1e6 {
				return 0, fmt.Errorf("the training loss diverged at epoch %d (lr = %v)", ep+1, h.LR)
			}
			fmt.Fprintf(log, "epoch %d train_loss=%.6f\n", ep+1, tl)
		}
	}
	vl := m.loss(valX, ds.ValY, ds.Classify)
	if math.IsNaN(vl) || math.IsInf(vl, 0) {
		return 0, fmt.Errorf("the validation loss is %v", vl)
	}
	return vl, nil
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
