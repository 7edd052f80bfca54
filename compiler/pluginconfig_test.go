package compiler

import (
	"os"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/cue"
	"github.com/assay-lang/assay/lang/diag"
)

// pluginSpec is base.hcl with one more plugin block.
func pluginSpec(t *testing.T, block string) string {
	src, _ := mutate(t, readBase(t), "prices {", block+"\n\nprices {")
	return src
}

func TestPluginConfigChecked(t *testing.T) {
	tests := []struct {
		name  string
		block string
		code  string // "" for a clean compile
		want  string // summary or detail substring
		line  int    // 1-based line inside block of the diagnostic
	}{
		{name: "openai with base_url", block: `plugin "o" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "http://127.0.0.1:8000/v1", model = "m" }
}`},
		{name: "openai without base_url", block: `plugin "o" {
  kind   = "llm"
  source = "builtin:openai"
  config = { model = "m" }
}`, code: CodeMissing, want: "config.base_url is missing", line: 4},
		{name: "openai typo", block: `plugin "o" {
  kind   = "llm"
  source = "builtin:openai"
  config = { bse_url = "http://127.0.0.1:8000/v1", base_url = "http://127.0.0.1:8000/v1" }
}`, code: CodePluginConfig, want: `did you mean "base_url"?`, line: 4},
		{name: "openai not a URL", block: `plugin "o" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "127.0.0.1:8000" }
}`, code: CodePluginConfig, want: "not an http(s) URL", line: 4},
		{name: "openai base_url with a key in the query", block: `plugin "o" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "https://llm.example/v1?api-key=K3Y-SECRET", model = "m" }
}`, code: CodePluginConfig, want: "config.base_url: carries a query string", line: 4},
		{name: "command without command", block: `plugin "c" {
  kind   = "trainer"
  source = "builtin:command"
  config = { metric_regex = "loss=([0-9.]+)" }
}`, code: CodeMissing, want: "config.command is missing", line: 4},
		{name: "command complete", block: `plugin "c" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    command      = "python train.py --config {{config}}"
    apply        = "patch"
    repo         = "."
    revision     = "HEAD"
    metric_file  = "m.json"
    metric_field = "loss"
    time_limit   = "2h"
    env          = { A = 1, B = "x" }
    knobs        = { lr = { default = 0.1, mechanism = "optimizer", values = [0.1, 0.2] } }
  }
}`},
		{name: "patch without revision", block: `plugin "c" {
  kind   = "trainer"
  source = "builtin:command"
  config = { command = "train", apply = "patch", repo = ".", metric_regex = "l=(.*)" }
}`, code: CodeMissing, want: "config.revision is missing", line: 4},
		{name: "offline takes none", block: `plugin "o2" {
  kind   = "llm"
  source = "builtin:offline"
  config = { model = "x" }
}`, code: CodePluginConfig, want: "takes no config", line: 4},
		{name: "own executable unchecked", block: `plugin "mine" {
  kind   = "trainer"
  source = "./bin/trainer"
  config = { bse_url = 1, command = ["a"] }
}`},
		{name: "unknown builtin unchecked", block: `plugin "mine" {
  kind   = "trainer"
  source = "builtin:custom"
  config = { whatever = true }
}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := pluginSpec(t, tt.block)
			blockLine := strings.Count(src[:strings.Index(src, tt.block)], "\n") + 1
			_, ds := compileSource(t, "p.hcl", []byte(src))
			var got []*diag.Diagnostic
			for _, d := range ds {
				if d.Code == CodePluginConfig || strings.Contains(d.Summary, "config.") {
					got = append(got, d)
				}
			}
			if tt.code == "" {
				if ds.HasErrors() {
					t.Fatalf("want a clean compile, got:\n%s", ds.Format(0))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one config diagnostic, got:\n%s", ds.Format(0))
			}
			d := got[0]
			if strings.Contains(d.Summary+d.Detail, "K3Y-SECRET") {
				t.Errorf("the diagnostic repeats the key: %v", d)
			}
			if d.Code != tt.code || !strings.Contains(d.Summary+" "+d.Detail, tt.want) {
				t.Errorf("got %v, want %s containing %q", d, tt.code, tt.want)
			}
			if want := blockLine + tt.line - 1; d.Range.Filename != "p.hcl" || d.Range.Start.Line != want {
				t.Errorf("at %s, want p.hcl:%d (the config attribute)", d.Range, want)
			}
		})
	}
}

// A missing config points at the plugin block's name.
func TestPluginConfigMissingPointsAtBlock(t *testing.T) {
	src := pluginSpec(t, "plugin \"c\" {\n  kind   = \"trainer\"\n  source = \"builtin:command\"\n}")
	_, ds := compileSource(t, "p.hcl", []byte(src))
	line := strings.Count(src[:strings.Index(src, `plugin "c"`)], "\n") + 1
	n := 0
	for _, d := range ds {
		if strings.Contains(d.Summary, `plugin "c"`) {
			n++
			if d.Range.Start.Line != line || d.Range.Start.Column != 8 {
				t.Errorf("%v: want it at line %d column 8, the block's label", d, line)
			}
		}
	}
	if n != 1 { // command (a metric is asked for once there is a command)
		t.Errorf("%d diagnostics about plugin c, want 1:\n%s", n, ds.Format(0))
	}
}

// The CUE front end gives the same diagnostics, pointing into the .cue file.
func TestPluginConfigCUE(t *testing.T) {
	src, err := os.ReadFile("../specs/lm2lm.cue")
	if err != nil {
		t.Fatal(err)
	}
	const line = `config: base_url: "http://127.0.0.1:8000/v1"`
	if !strings.Contains(string(src), line) {
		t.Fatalf("specs/lm2lm.cue no longer has %s", line)
	}
	bad := strings.Replace(string(src), line, `config: {model: "m", bse_url: "http://127.0.0.1:8000/v1"}`, 1)
	s, ds := cue.Load([]cue.Source{{Name: "lm2lm.cue", Src: []byte(bad)}}, cue.Options{})
	if ds.HasErrors() {
		t.Fatalf("does not load:\n%s", ds.Format(0))
	}
	_, ds = Compile(s, Options{})
	ds = ds.Errors()
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
		if d.Range.Filename != "lm2lm.cue" || d.Range.Start.Line == 0 {
			t.Errorf("%v: not positioned in lm2lm.cue", d)
		}
	}
	if strings.Join(codes, ",") != CodeMissing+","+CodePluginConfig || !strings.Contains(ds[1].Detail, `did you mean "base_url"?`) {
		t.Errorf("diagnostics:\n%s", ds.Format(0))
	}
}

// A command template the trainer would refuse, or whose placeholder names
// nothing, is refused at validate, placed in the template.
func TestCommandTemplateCheckedAtValidate(t *testing.T) {
	for _, c := range []struct{ command, want string }{
		{`timeout 600 bash -c \"python train.py --lr {{lr}}\"`, `config.command: line 1, column 43: {{lr}}: its word "python train.py --lr {{lr}}" holds " " beside the value`},
		{`python3 train.py --lr {{lrr}}`, "config.command: line 1, column 23: unknown placeholder {{lrr}}: it is neither built in nor a declared knob; did you mean {{lr}}?"},
		{`eval {{lr}}`, "config.command: line 1, column 6: {{lr}}: eval reads its operands as shell code"},
	} {
		block := `plugin "c" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    command      = "` + c.command + `"
    metric_regex = "loss=([0-9.]+)"
    knobs        = { lr = { default = 0.1 } }
  }
}`
		src := pluginSpec(t, block)
		_, ds := compileSource(t, "p.hcl", []byte(src))
		var got *diag.Diagnostic
		for _, d := range ds {
			if d.Code == CodePluginConfig {
				got = d
			}
		}
		if got == nil || !strings.Contains(got.Summary, c.want) {
			t.Errorf("%s: got\n%s\nwant an %s containing %q", c.command, ds.Format(0), CodePluginConfig, c.want)
		}
	}
}

// metric_file's placeholders are checked too: one that names nothing would
// leave the path unrendered, found only after a run.
func TestMetricFileCheckedAtValidate(t *testing.T) {
	block := `plugin "c" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    command      = "python3 train.py --out {{workdir}}/m.json"
    metric_file  = "{{workdr}}/m.json"
    metric_field = "loss"
  }
}`
	_, ds := compileSource(t, "p.hcl", []byte(pluginSpec(t, block)))
	if out := ds.Format(0); !hasDiag(out, CodePluginConfig, "config.metric_file: unknown placeholder {{workdr}}: it is neither built in nor a declared knob; did you mean {{workdir}}?") {
		t.Errorf("got\n%s", out)
	}
	ok, _ := mutate(t, block, "{{workdr}}", "{{workdir}}")
	if _, ds := compileSource(t, "p.hcl", []byte(pluginSpec(t, ok))); ds.HasErrors() {
		t.Errorf("{{workdir}}/m.json refused:\n%s", ds.Format(0))
	}
}

// pass_env may not hand an LLM plugin's API key to the jobs.
func TestPassEnvRefusesLLMKeys(t *testing.T) {
	for _, c := range []struct{ pass, keyEnv, want string }{
		{`["HF_HOME"]`, "", ""},
		{`["HF_HOME", "OPENAI_API_KEY"]`, "", `config.pass_env[1]: OPENAI_API_KEY is the API key variable of plugin "o"`},
		{`["MY_KEY"]`, `, api_key_env = "MY_KEY"`, `config.pass_env[0]: MY_KEY is the API key variable of plugin "o"`},
		{`["OPENAI_API_KEY"]`, `, api_key_env = "MY_KEY"`, "OPENAI_API_KEY is the default API key variable of builtin:openai"},
		{`["A-B"]`, "", `config.pass_env[0]: "A-B" is not a variable name`},
		{`[], env = { OPENAI_API_KEY = "sk-x" }`, "", `config.env.OPENAI_API_KEY: OPENAI_API_KEY is the API key variable of plugin "o"`},
	} {
		block := `plugin "o" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "http://127.0.0.1:8000/v1", model = "m"` + c.keyEnv + ` }
}

plugin "c" {
  kind   = "trainer"
  source = "builtin:command"
  config = { command = "train", metric_regex = "l=([0-9.]+)", pass_env = ` + c.pass + ` }
}`
		_, ds := compileSource(t, "p.hcl", []byte(pluginSpec(t, block)))
		out := ds.Format(0)
		if c.want == "" {
			if strings.Contains(out, "pass_env") {
				t.Errorf("%s: %s", c.pass, out)
			}
			continue
		}
		if !hasDiag(out, CodePluginConfig, c.want) {
			t.Errorf("%s %s: got\n%s\nwant %q", c.pass, c.keyEnv, out, c.want)
		}
	}
}
