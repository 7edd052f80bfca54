package trainer

import (
	"reflect"
	"sort"
	"testing"
)

// TestSchemaMatchesParseConfig keeps the declaration `assay validate`
// checks (pluginconfig.Command) in step with what ParseConfig reads: the
// same keys, the same defaults, and agreement on which configs are bad.
func TestSchemaMatchesParseConfig(t *testing.T) {
	keys := append([]string(nil), configKeys...)
	sort.Strings(keys)
	if got := Schema.Keys(); !reflect.DeepEqual(got, keys) {
		t.Errorf("schema keys %v\nParseConfig keys %v", got, keys)
	}
	c, err := ParseConfig(map[string]any{"command": "train", "metric_regex": "l=([0-9.]+)"})
	if err != nil {
		t.Fatal(err)
	}
	for key, got := range map[string]any{"apply": c.Apply, "overrides_file": c.OverridesFile, "run_dir": c.RunDir, "timeout_infeasible": c.TimeoutInfeasible} {
		if def := Schema.Field(key).Default; def != got {
			t.Errorf("%s: schema default %v, ParseConfig default %v", key, def, got)
		}
	}

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
	} {
		_, perr := ParseConfig(cfg)
		ps := Schema.Check(cfg)
		if (perr == nil) != (len(ps) == 0) {
			t.Errorf("config %v: ParseConfig err = %v, schema problems = %v; they must agree", cfg, perr, ps)
		}
	}
}
