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
//
// The edit surface is train.go (the hyperparameters and the training loop)
// and model.go (the model); this harness, the data (data.go) and the
// evaluator (eval.go), which computes the metric from the trained model's
// predictions on rows Train never sees, are fixed.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// exitInfeasible is the exit code the spec's infeasible_exit_codes names.
const exitInfeasible = 3

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
	model, err := Train(ds.TrainX, ds.TrainY, ds.Classify, h, *seed, os.Stdout)
	if err != nil {
		fail(exitInfeasible, err)
	}
	loss, err := Evaluate(model, ds)
	if err != nil {
		fail(exitInfeasible, err)
	}
	fmt.Printf("val_loss=%.6f\n", loss)
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "train:", err)
	os.Exit(code)
}
