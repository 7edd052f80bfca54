package pluginconfig

import (
	"errors"
	"strings"
	"testing"
)

// problems renders Check's result as "path: kind" lines for comparison.
func problems(ps []Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path+": "+string(p.Kind))
	}
	return strings.Join(out, "\n")
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"openai", "offline", "tinylm", "command"} {
		s, ok := Lookup("builtin:" + name)
		if !ok || s.Builtin != name {
			t.Errorf("Lookup(builtin:%s) = %v, %v", name, s, ok)
		}
	}
	for _, src := range []string{"./bin/trainer", "builtin:nope", "openai", ""} {
		if _, ok := Lookup(src); ok {
			t.Errorf("Lookup(%q) found a schema; only built-in sources have one", src)
		}
	}
}

func TestCheckOpenAI(t *testing.T) {
	tests := []struct {
		name string
		cfg  map[string]any
		want string
	}{
		{"minimal", map[string]any{"base_url": "http://127.0.0.1:8000/v1"}, ""},
		{"everything", map[string]any{"base_url": "https://llm.example.internal/v1", "model": "m", "api_key_env": "K",
			"requests_per_second": 2.5, "max_concurrency": 4.0, "max_retries": 0.0, "timeout_seconds": 30.0,
			"backoff_seconds": 0.5, "max_backoff_seconds": 10.0, "json_mode": false}, ""},
		{"no config", nil, "base_url: missing"},
		{"no base_url", map[string]any{"model": "m"}, "base_url: missing"},
		{"empty base_url", map[string]any{"base_url": ""}, "base_url: missing"},
		{"not a URL", map[string]any{"base_url": "localhost:8000"}, "base_url: value"},
		{"credentials in URL", map[string]any{"base_url": "https://u:sk-pass@h/v1"}, "base_url: value"},
		{"typo", map[string]any{"base_url": "http://h/v1", "modle": "m"}, "modle: unknown"},
		{"key in spec", map[string]any{"base_url": "http://h/v1", "api_key": "sk-123"}, "api_key: forbidden"},
		{"wrong type", map[string]any{"base_url": "http://h/v1", "json_mode": "yes"}, "json_mode: type"},
		{"below min", map[string]any{"base_url": "http://h/v1", "max_concurrency": 0.0}, "max_concurrency: value"},
		{"fraction", map[string]any{"base_url": "http://h/v1", "max_retries": 2.5}, "max_retries: type"},
		{"above max", map[string]any{"base_url": "http://h/v1", "timeout_seconds": 1e9}, "timeout_seconds: value"},
		{"zero timeout", map[string]any{"base_url": "http://h/v1", "timeout_seconds": 0.0}, "timeout_seconds: value"},
		{"int accepted", map[string]any{"base_url": "http://h/v1", "max_retries": 3}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := problems(OpenAI.Check(tt.cfg)); got != tt.want {
				t.Errorf("Check(%v) =\n%s\nwant\n%s", tt.cfg, got, tt.want)
			}
		})
	}
}

func TestCheckCommand(t *testing.T) {
	base := func(kv ...any) map[string]any {
		m := map[string]any{"command": "python train.py --config {{config}}", "metric_file": "m.json", "metric_field": "eval.loss"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	tests := []struct {
		name string
		cfg  map[string]any
		want string
	}{
		{"minimal", base(), ""},
		{"no command", base("command", nil), "command: missing"},
		{"blank command", base("command", "  "), "command: missing"},
		{"command as a list", base("command", []any{"train", "--x"}), "command: type"},
		{"no config at all", nil, "command: missing"},
		{"an updater alone", map[string]any{"update_command": "python grpo.py --batch {{batch}}"}, ""},
		{"an updater with a metric", map[string]any{"update_command": "u", "metric_regex": `l=(\d)`}, ""},
		{"regex instead", base("metric_file", nil, "metric_field", nil, "metric_regex", `loss=([0-9.]+)`), ""},
		{"both metrics", base("metric_regex", `loss=([0-9.]+)`), "metric_regex: conflict"},
		{"no group", base("metric_file", nil, "metric_field", nil, "metric_regex", `loss=[0-9.]+`), "metric_regex: value"},
		{"bad regex", base("metric_file", nil, "metric_field", nil, "metric_regex", `(`), "metric_regex: value"},
		{"field without file", base("metric_file", nil, "metric_regex", `l=(\d)`), "metric_field: conflict"},
		{"file without field", base("metric_field", nil), "metric_field: missing"},
		{"apply enum", base("apply", "merge"), "apply: enum"},
		{"patch needs repo", base("apply", "patch"), "repo: missing\nrevision: missing"},
		{"patch", base("apply", "patch", "repo", ".", "revision", "HEAD"), ""},
		{"revision alone", base("revision", "HEAD"), "repo: missing"},
		{"format enum", base("overrides_format", "toml"), "overrides_format: enum"},
		{"durations", base("time_limit", "2h"), ""},
		{"seconds", base("time_limit", 90.0), ""},
		{"bad duration", base("time_limit", "soon"), "time_limit: value"},
		{"negative duration", base("time_limit", -1.0), "time_limit: value"},
		{"exit codes", base("infeasible_exit_codes", []any{3.0, 4.5}), "infeasible_exit_codes[1]: type"},
		{"patterns", base("infeasible_patterns", []any{"CUDA out of memory", "("}), "infeasible_patterns[1]: value"},
		{"env", base("env", map[string]any{"A": "1", "B": 2.0, "C": true}), ""},
		{"env nested", base("env", map[string]any{"A": []any{"x"}}), "env.A: type"},
		{"knobs", base("knobs", map[string]any{"lr": map[string]any{"default": "0.1", "mechanism": "optimizer", "values": []any{"0.1", 0.2}}}), ""},
		{"knob typo", base("knobs", map[string]any{"lr": map[string]any{"defualt": "0.1"}}), "knobs.lr.default: missing\nknobs.lr.defualt: unknown"},
		{"knob not object", base("knobs", map[string]any{"lr": "0.1"}), "knobs.lr: type"},
		{"timeout flag", base("timeout_infeasible", "yes"), "timeout_infeasible: type"},
		{"typo", base("comand", "x"), "comand: unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := problems(Command.Check(tt.cfg)); got != tt.want {
				t.Errorf("Check(%v) =\n%s\nwant\n%s", tt.cfg, got, tt.want)
			}
		})
	}
}

func TestCheckTinyLMAndOffline(t *testing.T) {
	tests := []struct {
		s    *Schema
		cfg  map[string]any
		want string
	}{
		{TinyLM, nil, ""},
		{TinyLM, map[string]any{"steps": 600.0, "corpus": "grammar"}, ""},
		{TinyLM, map[string]any{"steps": 0.0}, "steps: value"},
		{TinyLM, map[string]any{"steps": "600"}, "steps: type"},
		{TinyLM, map[string]any{"corpus": "shakespeare"}, "corpus: enum"},
		{TinyLM, map[string]any{"step": 600.0}, "step: unknown"},
		{Offline, nil, ""},
		{Offline, map[string]any{}, ""},
		{Offline, map[string]any{"model": "x"}, "model: unknown"},
	}
	for _, tt := range tests {
		if got := problems(tt.s.Check(tt.cfg)); got != tt.want {
			t.Errorf("%s.Check(%v) =\n%s\nwant\n%s", tt.s.Builtin, tt.cfg, got, tt.want)
		}
	}
}

func TestUnknownListsKnownKeys(t *testing.T) {
	ps := OpenAI.Check(map[string]any{"base_url": "http://h/v1", "bse_url": "x"})
	if len(ps) != 1 || ps[0].Kind != Unknown {
		t.Fatalf("problems = %v", ps)
	}
	if !strings.Contains(strings.Join(ps[0].Known, ","), "base_url") {
		t.Errorf("Known = %v, want the schema's keys", ps[0].Known)
	}
	if s := ps[0].String(); !strings.HasPrefix(s, "config.bse_url: ") || !strings.Contains(s, "base_url") {
		t.Errorf("String() = %q", s)
	}
}

func TestDecodeFillsDefaults(t *testing.T) {
	v, err := OpenAI.Decode(map[string]any{"base_url": "http://h/v1", "max_retries": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	if v.String("base_url") != "http://h/v1" || v.Int("max_retries") != 2 || v.Int("max_concurrency") != 8 ||
		v.String("api_key_env") != "OPENAI_API_KEY" || !v.Bool("json_mode") || v.Float("timeout_seconds") != 120 {
		t.Errorf("decoded %v", v)
	}
	if v.Has("model") {
		t.Errorf("model has no default, but Decode set it: %v", v["model"])
	}
	_, err = OpenAI.Decode(map[string]any{"model": "m", "api_key": "sk-secret"})
	if err == nil {
		t.Fatal("a config without base_url decoded")
	}
	var ce *Error
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("err = %#v, want an *Error with two problems", err)
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("the error quotes the forbidden key's value: %v", err)
	}
	// Decode never changes the caller's map.
	in := map[string]any{"base_url": "http://h/v1"}
	OpenAI.Decode(in)
	if len(in) != 1 {
		t.Errorf("Decode changed its input: %v", in)
	}
}

// TestSchemasAreSound checks every declaration: defaults fit their own
// field, enums are non-empty words, rules name declared fields.
func TestSchemasAreSound(t *testing.T) {
	for _, s := range All {
		if s.Builtin == "" || s.Kind == "" || s.Doc == "" {
			t.Errorf("schema %+v lacks a name, kind or doc", s)
		}
		var walk func(path string, fs []*Field)
		walk = func(path string, fs []*Field) {
			for _, f := range fs {
				p := path + f.Name
				if f.Doc == "" {
					t.Errorf("%s: %s has no doc", s.Builtin, p)
				}
				if f.Required && f.Default != nil {
					t.Errorf("%s: %s is required and has a default", s.Builtin, p)
				}
				if f.Default != nil {
					if ps := checkValue(f, p, f.Default); len(ps) > 0 {
						t.Errorf("%s: default of %s does not fit it: %v", s.Builtin, p, ps)
					}
				}
				walk(p+".", f.Fields)
			}
		}
		walk("", s.Fields)
		for _, r := range s.Rules {
			for _, k := range append(append([]string{r.If}, r.Need...), r.OneOf...) {
				if k != "" && s.Field(k) == nil {
					t.Errorf("%s: rule %+v names undeclared %q", s.Builtin, r, k)
				}
			}
		}
		for k := range s.Forbidden {
			if s.Field(k) != nil {
				t.Errorf("%s: %q is both declared and forbidden", s.Builtin, k)
			}
		}
	}
}

// A knob's type is checked where it is declared, and its default is of
// it: what validate refuses here no proposal could set either.
func TestCheckKnobTypes(t *testing.T) {
	knob := func(k map[string]any) map[string]any {
		return map[string]any{"command": "train --lr {{lr}}", "metric_regex": "m=(1)", "knobs": map[string]any{"lr": k}}
	}
	for _, c := range []struct {
		knob map[string]any
		want string // the message of the one problem, or ""
	}{
		{map[string]any{"default": 0.03, "values": []any{0.01, 0.03}}, ""},
		{map[string]any{"default": 0.03}, ""},
		{map[string]any{"default": "adam"}, ""},
		{map[string]any{"default": true}, ""},
		{map[string]any{"default": 4.0, "type": "integer", "min": 1.0, "max": 64.0}, ""},
		{map[string]any{"default": "data/small", "pattern": "[a-z]+/[a-z]+"}, ""},
		{map[string]any{"default": 0.05, "values": []any{0.01, 0.03}}, `knobs.lr.default: "0.05" is not one of 0.01, 0.03`},
		{map[string]any{"default": "1$(touch MARK)"}, `knobs.lr.default: "1$(touch MARK)" is not a plain word`},
		{map[string]any{"default": "a b", "pattern": ".*"}, `knobs.lr.default: "a b" is not a string matching .*`},
		{map[string]any{"default": 0.5, "type": "integer"}, `knobs.lr.default: "0.5" is not an integer`},
		{map[string]any{"default": 100.0, "type": "integer", "max": 64.0}, "is not an integer ≤ 64"},
		{map[string]any{"default": 1.0, "values": []any{1.0, "x y"}}, `knobs.lr: values[1]: "x y" is not a number, true, false or a plain word`},
		{map[string]any{"default": 1.0, "min": 0.0, "max": 2.0}, ""},
		{map[string]any{"default": "a", "min": 0.0}, `knobs.lr: min and max bound a type "number" or "integer"`},
		{map[string]any{"default": "a", "type": "word"}, `knobs.lr.type: "word" is not one of "number", "integer", "bool", "string"`},
		{map[string]any{"default": "a", "pattern": "("}, "knobs.lr.pattern: \"(\" is not a regular expression"},
	} {
		ps := Command.Check(knob(c.knob))
		got := Join(ps)
		switch {
		case c.want == "" && len(ps) > 0:
			t.Errorf("%v: %s", c.knob, got)
		case c.want != "" && (len(ps) != 1 || !strings.Contains(got, c.want)):
			t.Errorf("%v:\n got %s\nwant one problem containing %s", c.knob, got, c.want)
		}
	}
}
