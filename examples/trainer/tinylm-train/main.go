// Command tinylm-train trains Assay's tiny character-level language model
// (package plugins/builtin/tinylm/model) from the command line, the way a
// user's own training script would run under the command trainer: it reads
// an overrides file of knob values, trains on the CPU, prints
// "val_bpb=..." and writes a metrics JSON. An infeasible setup (an unknown
// knob, a bad value, a diverging run) exits with code 3.
//
//	go run ./examples/trainer/tinylm-train --config overrides.json --steps 200 --out metrics.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/assay-lang/assay/plugins/builtin/tinylm/model"
)

// exitInfeasible is the exit code the command trainer's
// infeasible_exit_codes = [3] recognises.
const exitInfeasible = 3

func main() {
	config := flag.String("config", "", "JSON overrides file: knob name to value")
	steps := flag.Int("steps", 200, "training steps")
	corpus := flag.String("corpus", "grammar", "corpus name")
	seed := flag.Uint64("seed", 0, "random seed")
	out := flag.String("out", "metrics.json", "metrics JSON to write")
	flag.Parse()

	edits := map[string]string{}
	if *config != "" {
		b, err := os.ReadFile(*config)
		if err != nil {
			fail(1, err)
		}
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			fail(1, fmt.Errorf("%s: %v", *config, err))
		}
		for k, v := range raw {
			switch x := v.(type) {
			case float64:
				edits[k] = strconv.FormatFloat(x, 'g', -1, 64)
			case string:
				edits[k] = x
			default:
				edits[k] = fmt.Sprint(x)
			}
		}
	}
	h, err := model.DefaultHyper().Apply(edits)
	if err == nil {
		err = h.Validate()
	}
	if err != nil {
		fail(exitInfeasible, fmt.Errorf("infeasible: %v", err))
	}
	c, err := model.LoadCorpus(*corpus)
	if err != nil {
		fail(1, err)
	}
	res, err := model.Train(context.Background(), model.Config{Hyper: h, Corpus: c, Steps: *steps, Seed: *seed, LogEvery: max(1, *steps/10)})
	if errors.Is(err, model.ErrDiverged) {
		fail(exitInfeasible, fmt.Errorf("infeasible: %v", err))
	}
	if err != nil {
		fail(1, err)
	}
	for _, l := range res.Log {
		fmt.Println(l)
	}
	fmt.Printf("val_bpb=%.6f\n", res.ValBPB)
	b, _ := json.MarshalIndent(map[string]any{
		"eval":  map[string]any{"val_bpb": res.ValBPB},
		"train": map[string]any{"bpb": res.TrainBPB, "steps": res.Steps, "params": res.Params},
	}, "", "  ")
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fail(1, err)
	}
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "tinylm-train:", err)
	os.Exit(code)
}
