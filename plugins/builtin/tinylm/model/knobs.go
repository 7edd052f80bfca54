package model

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/plugins"
)

// Hyper is the training setup a proposal edits.
type Hyper struct {
	LearningRate float64
	Optimizer    string // sgd | momentum | adam
	Schedule     string // constant | cosine
	Warmup       int    // steps of linear warm-up
	WeightDecay  float64
	BatchSize    int
	Width        int // hidden units per layer
	Depth        int // hidden layers
	Embed        int // embedding size per character
	Context      int // characters of context
	Activation   string
	InitScale    float64
}

// knobSpec ties a knob to its field of Hyper.
type knobSpec struct {
	plugins.Knob
	set func(h *Hyper, v string) error
}

func floatSetter(dst func(*Hyper) *float64) func(*Hyper, string) error {
	return func(h *Hyper, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return err
		}
		*dst(h) = f
		return nil
	}
}

func intSetter(dst func(*Hyper) *int) func(*Hyper, string) error {
	return func(h *Hyper, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		*dst(h) = n
		return nil
	}
}

func stringSetter(dst func(*Hyper) *string) func(*Hyper, string) error {
	return func(h *Hyper, v string) error { *dst(h) = v; return nil }
}

// Mechanism directions of the knobs.
const (
	MechOptimizer      = "optimizer"
	MechSchedule       = "schedule"
	MechRegularisation = "regularisation"
	MechArchitecture   = "architecture"
	MechData           = "data"
	MechInit           = "initialisation"
)

var knobSpecs = []knobSpec{
	{plugins.Knob{Name: "learning_rate", Mechanism: MechOptimizer, Default: "0.003",
		Values: []string{"0.0001", "0.0003", "0.001", "0.003", "0.01", "0.03", "0.1", "0.3", "1"}},
		floatSetter(func(h *Hyper) *float64 { return &h.LearningRate })},
	{plugins.Knob{Name: "optimizer", Mechanism: MechOptimizer, Default: "adam",
		Values: []string{"sgd", "momentum", "adam"}},
		stringSetter(func(h *Hyper) *string { return &h.Optimizer })},
	{plugins.Knob{Name: "lr_schedule", Mechanism: MechSchedule, Default: "constant",
		Values: []string{"constant", "cosine"}},
		stringSetter(func(h *Hyper) *string { return &h.Schedule })},
	{plugins.Knob{Name: "warmup", Mechanism: MechSchedule, Default: "0",
		Values: []string{"0", "50", "100", "200", "500"}},
		intSetter(func(h *Hyper) *int { return &h.Warmup })},
	{plugins.Knob{Name: "weight_decay", Mechanism: MechRegularisation, Default: "0",
		Values: []string{"0", "0.0001", "0.001", "0.01", "0.1"}},
		floatSetter(func(h *Hyper) *float64 { return &h.WeightDecay })},
	{plugins.Knob{Name: "batch_size", Mechanism: MechData, Default: "32",
		Values: []string{"8", "16", "32", "64", "128"}},
		intSetter(func(h *Hyper) *int { return &h.BatchSize })},
	{plugins.Knob{Name: "context", Mechanism: MechData, Default: "3",
		Values: []string{"1", "2", "3", "4", "6", "8"}},
		intSetter(func(h *Hyper) *int { return &h.Context })},
	{plugins.Knob{Name: "width", Mechanism: MechArchitecture, Default: "32",
		Values: []string{"8", "16", "32", "64", "96", "128"}},
		intSetter(func(h *Hyper) *int { return &h.Width })},
	{plugins.Knob{Name: "depth", Mechanism: MechArchitecture, Default: "1",
		Values: []string{"1", "2", "3"}},
		intSetter(func(h *Hyper) *int { return &h.Depth })},
	{plugins.Knob{Name: "embed", Mechanism: MechArchitecture, Default: "8",
		Values: []string{"2", "4", "8", "12", "16"}},
		intSetter(func(h *Hyper) *int { return &h.Embed })},
	{plugins.Knob{Name: "activation", Mechanism: MechArchitecture, Default: "tanh",
		Values: []string{"tanh", "relu", "gelu"}},
		stringSetter(func(h *Hyper) *string { return &h.Activation })},
	{plugins.Knob{Name: "init_scale", Mechanism: MechInit, Default: "1",
		Values: []string{"0.1", "0.3", "1", "3", "10"}},
		floatSetter(func(h *Hyper) *float64 { return &h.InitScale })},
}

// Knobs lists what a proposal may change, each with its mechanism
// direction, default and discrete values.
func Knobs() []plugins.Knob {
	out := make([]plugins.Knob, len(knobSpecs))
	for i, k := range knobSpecs {
		out[i] = k.Knob
		out[i].Values = append([]string(nil), k.Values...)
	}
	return out
}

// DefaultHyper is the baseline configuration: every knob at its default.
func DefaultHyper() Hyper {
	var h Hyper
	for _, k := range knobSpecs {
		if err := k.set(&h, k.Default); err != nil {
			panic(fmt.Sprintf("knob %s: bad default: %v", k.Name, err))
		}
	}
	return h
}

// Apply returns h with edits applied. An unknown knob or a value outside
// the knob's list is an error: the proposal "does not build".
func (h Hyper) Apply(edits map[string]string) (Hyper, error) {
	names := make([]string, 0, len(edits))
	for n := range edits {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := strings.TrimSpace(edits[n])
		k := findKnob(n)
		if k == nil {
			return h, fmt.Errorf("unknown knob %q (knobs: %s)", n, strings.Join(knobNames(), ", "))
		}
		canon, ok := k.canonical(v)
		if !ok {
			return h, fmt.Errorf("knob %s: invalid value %q (values: %s)", n, v, strings.Join(k.Values, ", "))
		}
		if err := k.set(&h, canon); err != nil {
			return h, fmt.Errorf("knob %s: %v", n, err)
		}
	}
	return h, nil
}

// canonical maps v to the listed value it names; numeric knobs accept any
// spelling of a listed number ("0.0010" for "0.001").
func (k *knobSpec) canonical(v string) (string, bool) {
	for _, x := range k.Values {
		if x == v {
			return x, true
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return "", false
	}
	for _, x := range k.Values {
		if g, err := strconv.ParseFloat(x, 64); err == nil && g == f {
			return x, true
		}
	}
	return "", false
}

func findKnob(name string) *knobSpec {
	for i := range knobSpecs {
		if knobSpecs[i].Name == name {
			return &knobSpecs[i]
		}
	}
	return nil
}

func knobNames() []string {
	ns := make([]string, len(knobSpecs))
	for i, k := range knobSpecs {
		ns[i] = k.Name
	}
	return ns
}
