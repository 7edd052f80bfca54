package trainer

import (
	"reflect"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins"
)

// TestEveryKeyReachesConfig: ParseConfig decodes through the schema, so
// every key the schema declares must land in a Config field; a key added to
// the schema that the trainer does not read fails here.
func TestEveryKeyReachesConfig(t *testing.T) {
	all := map[string]any{"command": "train --config {{config}}", "update_command": "update --out {{adapter_dir}}", "apply": "patch",
		"overrides_file": "o.yaml", "overrides_format": "json", "repo": ".", "revision": "HEAD",
		"metric_regex": "l=([0-9.]+)", "time_limit": "2h", "infeasible_exit_codes": []any{3.0},
		"infeasible_patterns": []any{"OOM"}, "timeout_infeasible": true, "run_dir": "runs", "env": map[string]any{"A": 1.0},
		"pass_env": []any{"HF_HOME"}, "task_command": []any{"go", "run", "."}, "task_dir": "src/x", "knobs": map[string]any{"lr": map[string]any{"default": 0.1, "mechanism": "opt", "values": []any{0.1, "0.2"}}}}
	c, err := ParseConfig(all)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{"command": c.Command, "update_command": c.UpdateCommand, "apply": c.Apply, "overrides_file": c.OverridesFile,
		"overrides_format": c.OverridesFormat, "repo": c.Repo, "revision": c.Revision, "metric_regex": c.MetricRegex.String(),
		"time_limit": c.TimeLimit, "infeasible_exit_codes": c.InfeasibleExitCodes, "infeasible_patterns": len(c.InfeasiblePatterns),
		"timeout_infeasible": c.TimeoutInfeasible, "run_dir": c.RunDir, "env": c.Env, "pass_env": c.PassEnv, "task_command": c.TaskCommand, "task_dir": c.TaskDir, "knobs": c.Knobs}
	want := map[string]any{"command": all["command"], "update_command": all["update_command"], "apply": "patch", "overrides_file": "o.yaml",
		"overrides_format": "json", "repo": ".", "revision": "HEAD", "metric_regex": "l=([0-9.]+)",
		"time_limit": 2 * time.Hour, "infeasible_exit_codes": []int{3}, "infeasible_patterns": 1,
		"timeout_infeasible": true, "run_dir": "runs", "env": map[string]string{"A": "1"}, "pass_env": []string{"HF_HOME"},
		"task_command": []string{"go", "run", "."}, "task_dir": "src/x",
		"knobs": []plugins.Knob{{Name: "lr", Default: "0.1", Mechanism: "opt", Values: []string{"0.1", "0.2"}}}}
	for _, k := range Schema.Keys() {
		if k == "metric_file" || k == "metric_field" {
			continue // exclusive with metric_regex; below
		}
		if _, ok := want[k]; !ok {
			t.Errorf("schema key %s: the test does not say where it lands in Config", k)
			continue
		}
		if !reflect.DeepEqual(got[k], want[k]) {
			t.Errorf("%s: Config has %#v, want %#v", k, got[k], want[k])
		}
	}
	c, err = ParseConfig(map[string]any{"command": "train", "metric_file": "m.json", "metric_field": "eval.loss"})
	if err != nil || c.MetricFile != "m.json" || c.MetricField != "eval.loss" {
		t.Errorf("metric_file, metric_field: %+v, %v", c, err)
	}
	// Defaults come from the schema.
	c, err = ParseConfig(map[string]any{"command": "train", "metric_regex": "l=([0-9.]+)"})
	if err != nil {
		t.Fatal(err)
	}
	for key, got := range map[string]any{"apply": c.Apply, "overrides_file": c.OverridesFile, "run_dir": c.RunDir, "timeout_infeasible": c.TimeoutInfeasible} {
		if def := Schema.Field(key).Default; def != got {
			t.Errorf("%s: schema default %v, Config has %v", key, def, got)
		}
	}
	if c.OverridesFormat != "json" {
		t.Errorf("overrides_format of overrides.json is %q, want json", c.OverridesFormat)
	}
}

// TestParseConfigAgreesWithSchema: what validate refuses, the trainer
// refuses, and the other way round.
func TestParseConfigAgreesWithSchema(t *testing.T) {
	ok := func(kv ...any) map[string]any {
		m := map[string]any{"command": "python train.py --config {{config}}", "metric_file": "m.json", "metric_field": "loss"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	for _, cfg := range []map[string]any{
		ok(),
		ok("metric_file", nil, "metric_field", nil, "metric_regex", `loss=([0-9.]+)`),
		ok("apply", "patch", "repo", ".", "revision", "HEAD"),
		ok("time_limit", "2h", "infeasible_exit_codes", []any{3.0}, "infeasible_patterns", []any{"OOM"}),
		ok("env", map[string]any{"A": 1.0, "B": "x"}, "overrides_file", "o.yaml", "overrides_format", "yaml"),
		ok("knobs", map[string]any{"lr": map[string]any{"default": 0.1, "mechanism": "opt", "values": []any{0.1, "0.2"}}}),
		ok("command", nil),
		ok("command", " "),
		ok("command", []any{"train"}),
		ok("metric_file", nil, "metric_field", nil),
		ok("metric_regex", `l=([0-9]+)`),
		ok("metric_field", nil),
		ok("metric_file", nil, "metric_regex", `l=([0-9]+)`),
		ok("metric_file", nil, "metric_field", nil, "metric_regex", `l=[0-9]+`),
		ok("apply", "merge"),
		ok("apply", "patch"),
		ok("apply", "patch", "repo", "."),
		ok("revision", "HEAD"),
		ok("overrides_format", "toml"),
		ok("time_limit", "soon"),
		ok("time_limit", -1.0),
		ok("infeasible_exit_codes", []any{1.5}),
		ok("infeasible_patterns", []any{"("}),
		ok("timeout_infeasible", "yes"),
		ok("env", "A=1"),
		ok("knobs", map[string]any{"lr": map[string]any{"defualt": 1.0}}),
		ok("comand", "x"),
		ok("env", map[string]any{"A B": "1"}),
		ok("overrides_file", "o.env", "knobs", map[string]any{"a.b": map[string]any{"default": 1.0}}),
		ok("overrides_file", "o.json", "knobs", map[string]any{"a.b": map[string]any{"default": 1.0}}),
	} {
		_, perr := ParseConfig(cfg)
		ps := Schema.Check(cfg)
		if (perr == nil) != (len(ps) == 0) {
			t.Errorf("config %v: ParseConfig err = %v, schema problems = %v; they must agree", cfg, perr, ps)
		}
	}
}
