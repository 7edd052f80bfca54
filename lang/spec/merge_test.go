package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/lang/diag"
)

func at(file string, line int) diag.Range {
	return diag.Range{Filename: file, Start: diag.Pos{Line: line, Column: 1}}
}

// mergeBase is a small base spec; each case builds its child over it.
func mergeBase() *Spec {
	return &Spec{
		Name:  Of("base", at("base.hcl", 1)),
		Seed:  Of(7, at("base.hcl", 2)),
		Files: []string{"base.hcl"},
		Prices: &Prices{
			Preset: Of("cloud-2026", at("base.hcl", 4)),
			GPU:    Of(map[string]float64{"H100": 6.98, "B200": 14}, at("base.hcl", 5)),
		},
		Environments: []*Environment{{
			Name:    "olmo3",
			Family:  Of("autoregressive", at("base.hcl", 8)),
			RunCost: &RunCost{GPU: Of("H100", at("base.hcl", 10)), GPUs: Of(8, at("base.hcl", 11)), Hours: Of(One(4.0), at("base.hcl", 12))},
			Tasks:   &TaskCounts{Train: Of(5, at("base.hcl", 14)), Holdout: Of(2, at("base.hcl", 15))},
		}},
		Loops: []*Loop{
			{Name: "policy", Algorithm: Of("dapo", at("base.hcl", 18)), Steps: Of(96, at("base.hcl", 19)), StatesPerStep: Of(256, at("base.hcl", 20))},
			{Name: "evolve", Kind: Of("evolution", at("base.hcl", 23)), Islands: Of(3, at("base.hcl", 24))},
		},
		Calibration: &Calibration{AfterSteps: Of([]int{16, 40, 64}, at("base.hcl", 27)), Budget: Of([]int{31, 35, 34}, at("base.hcl", 28))},
		Budget:      &Budget{RealRuns: Of(200, at("base.hcl", 31)), USD: Of(60000.0, at("base.hcl", 32))},
	}
}

func TestMerge(t *testing.T) {
	cases := []struct {
		name  string
		child *Spec
		// edit turns the base's tree into the expected merged tree.
		edit func(m map[string]any)
	}{
		{
			name:  "empty child inherits everything",
			child: &Spec{},
			edit:  func(m map[string]any) {},
		},
		{
			name:  "attribute override",
			child: &Spec{Name: Of("child", at("child.hcl", 2)), Seed: Of(9, at("child.hcl", 3))},
			edit: func(m map[string]any) {
				m["name"], m["seed"] = "child", 9.0
			},
		},
		{
			name:  "labelled block merges by label",
			child: &Spec{Loops: []*Loop{{Name: "policy", Steps: Of(40, at("child.hcl", 3))}}},
			edit: func(m map[string]any) {
				sub(m, "loop", "policy")["steps"] = 40.0
			},
		},
		{
			name:  "new label adds a block after the base's",
			child: &Spec{Loops: []*Loop{{Name: "extra", Kind: Of("rl", at("child.hcl", 3))}}},
			edit: func(m map[string]any) {
				m["loop"].(map[string]any)["extra"] = map[string]any{"kind": "rl"}
			},
		},
		{
			name:  "map merges entry by entry",
			child: &Spec{Prices: &Prices{GPU: Of(map[string]float64{"B200": 12, "L4": 0.8}, at("child.hcl", 3))}},
			edit: func(m map[string]any) {
				m["prices"].(map[string]any)["gpu_hourly"] = map[string]any{"H100": 6.98, "B200": 12.0, "L4": 0.8}
			},
		},
		{
			name:  "list is replaced whole",
			child: &Spec{Calibration: &Calibration{AfterSteps: Of([]int{50}, at("child.hcl", 3)), Budget: Of([]int{100}, at("child.hcl", 4))}},
			edit: func(m map[string]any) {
				c := m["calibration"].(map[string]any)
				c["after_steps"], c["budget"] = []any{50.0}, []any{100.0}
			},
		},
		{
			name: "nested single block merges field by field",
			child: &Spec{Environments: []*Environment{{
				Name:    "olmo3",
				RunCost: &RunCost{Hours: Of(One(2.5), at("child.hcl", 4))},
			}}},
			edit: func(m map[string]any) {
				sub(m, "environment", "olmo3")["run_cost"].(map[string]any)["hours"] = 2.5
			},
		},
		{
			name:  "new single block is added",
			child: &Spec{Evaluation: &Evaluation{Split: Of("holdout", at("child.hcl", 2)), AvgAt: Of(4, at("child.hcl", 3))}},
			edit: func(m map[string]any) {
				m["evaluation"] = map[string]any{"split": "holdout", "avg_at": 4.0}
			},
		},
		{
			name:  "sweep axes are labelled blocks",
			child: &Spec{Sweep: &Sweep{Mode: Of("grid", at("child.hcl", 2)), Axes: []*Axis{{Name: "loop.policy.steps", Values: []Literal{{Num: 40}, {Num: 80}}}}}},
			edit: func(m map[string]any) {
				m["sweep"] = map[string]any{"mode": "grid", "axis": map[string]any{"loop.policy.steps": map[string]any{"values": []any{40.0, 80.0}}}}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := mergeBase()
			before := Tree(base)
			want := Tree(mergeBase())
			c.edit(want)
			got := Merge(base, c.child)
			if d := cmp.Diff(want, Tree(got)); d != "" {
				t.Errorf("merged tree (-want +got):\n%s", d)
			}
			if d := cmp.Diff(before, Tree(base)); d != "" {
				t.Errorf("Merge changed the base (-before +after):\n%s", d)
			}
		})
	}
}

func sub(m map[string]any, kind, label string) map[string]any {
	return m[kind].(map[string]any)[label].(map[string]any)
}

// Ranges stay where each value was written, so diagnostics about inherited
// values point into the base file.
func TestMergeKeepsRanges(t *testing.T) {
	child := &Spec{
		Extends: Of("base.hcl", at("child.hcl", 1)),
		Files:   []string{"child.hcl"},
		Loops:   []*Loop{{Name: "policy", NameRange: at("child.hcl", 3), Steps: Of(40, at("child.hcl", 4))}},
	}
	got := Merge(mergeBase(), child)
	l := got.Loops[0]
	if l.Steps.Range != at("child.hcl", 4) {
		t.Errorf("steps range = %v, want the child's", l.Steps.Range)
	}
	if l.Algorithm.Range != at("base.hcl", 18) {
		t.Errorf("algorithm range = %v, want the base's", l.Algorithm.Range)
	}
	if got.Environments[0].RunCost.GPUs.Range != at("base.hcl", 11) {
		t.Errorf("inherited block range = %v, want the base's", got.Environments[0].RunCost.GPUs.Range)
	}
	if d := cmp.Diff([]string{"child.hcl", "base.hcl"}, got.Files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if got.Extends.Set {
		t.Errorf("merged spec still extends %q", got.Extends.V)
	}
}

// The result shares no block with its inputs: setting a field on it (as a
// sweep does) leaves the base alone.
func TestMergeCopies(t *testing.T) {
	base := mergeBase()
	got := Merge(base, &Spec{})
	if err := SetPath(got, "environment.olmo3.run_cost.gpus", Literal{Num: 2}); err != nil {
		t.Fatal(err)
	}
	if err := SetPath(got, "budget.real_runs", Literal{Num: 1}); err != nil {
		t.Fatal(err)
	}
	if base.Environments[0].RunCost.GPUs.V != 8 || base.Budget.RealRuns.V != 200 {
		t.Fatal("setting a field of the merged spec changed the base")
	}
}

// A second child block of a label the base has stays a second block, so
// the compiler still reports the duplicate.
func TestMergeKeepsChildDuplicates(t *testing.T) {
	child := &Spec{Loops: []*Loop{{Name: "policy", Steps: Of(1, at("c", 1))}, {Name: "policy", Steps: Of(2, at("c", 2))}}}
	got := Merge(mergeBase(), child)
	var steps []int
	for _, l := range got.Loops {
		if l.Name == "policy" {
			steps = append(steps, l.Steps.V)
		}
	}
	if d := cmp.Diff([]int{1, 2}, steps); d != "" {
		t.Errorf("policy loops (-want +got):\n%s", d)
	}
}

// Merging variables keeps the child's final value of a variable both declare.
func TestMergeVariables(t *testing.T) {
	base := &Spec{Variables: []*Variable{
		{Name: "steps", Type: Of("number", at("b", 1)), Value: Of[any](96.0, at("b", 2))},
		{Name: "only_base", Value: Of[any]("x", at("b", 3))},
	}}
	child := &Spec{Variables: []*Variable{{Name: "steps", Default: Of[any](40.0, at("c", 1)), Value: Of[any](40.0, at("c", 1))}}}
	got := Merge(base, child)
	if len(got.Variables) != 2 || got.Variables[0].Value.V != 40.0 || got.Variables[0].Type.V != "number" || got.Variables[1].Name != "only_base" {
		t.Errorf("variables = %+v %+v", got.Variables[0], got.Variables[1])
	}
}

// A child that sweeps an axis its base sweeps replaces the axis's values
// (a list is replaced whole, never merged, and never panics).
func TestMergeSweepAxis(t *testing.T) {
	base := mergeBase()
	base.Sweep = &Sweep{Axes: []*Axis{{Name: "critic.label.votes", Values: []Literal{{Num: 4}, {Num: 8}}}}}
	child := &Spec{Sweep: &Sweep{Axes: []*Axis{{Name: "critic.label.votes", Values: []Literal{{Num: 1}, {Num: 4}, {Num: 8}}}}}}
	got := Merge(base, child)
	if n := len(got.Sweep.Axes[0].Values); len(got.Sweep.Axes) != 1 || n != 3 {
		t.Fatalf("merged sweep %+v, want the child's one axis of 3 values", got.Sweep.Axes)
	}
}
