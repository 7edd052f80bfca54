package trainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/base/valuetype"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// hostileValues each try to run `touch CANARY` when pasted into a script.
func hostileValues(canary string) []string {
	c := canary
	return []string{
		"$(touch " + c + ")",
		"`touch " + c + "`",
		"'; touch " + c + "; '",
		`"; touch ` + c + `; "`,
		"x\ntouch " + c + "\n",
		"x'\ntouch " + c + "\n'",
		`\"; touch ` + c + `; #`,
		`'"$(touch ` + c + `)"'`,
		"a[$(touch " + c + ")]",
		"}; touch " + c + "; {",
		"$'\\n'; touch " + c,
		"-x; touch " + c,
	}
}

// pwned reports whether anything created a file in dir (a value may end
// the canary's path with more text, e.g. "PWNED:").
func pwned(dir string) bool {
	es, _ := os.ReadDir(dir)
	return len(es) > 0
}

// A value outside its knob's type never reaches the command: the trainer
// decides the proposal infeasible before anything runs, saying what the
// type admits. So it is for a string knob (a plain word, or a pattern of
// its own), a number, and an edit of a trainer that declares no knobs.
func TestHostileValuesAreRefused(t *testing.T) {
	canaryDir := t.TempDir()
	canary := filepath.Join(canaryDir, "PWNED")
	tr := newTrainer()
	for i, knobs := range []map[string]any{
		nil,
		{"v": map[string]any{"default": "adam"}},
		{"v": map[string]any{"default": "a", "pattern": ".*"}},
		{"v": map[string]any{"default": 0.5}},
	} {
		cfg := map[string]any{"command": `printf '%s' {{index .edits "v"}} > out; echo m=1`, "metric_regex": "m=(1)"}
		if knobs != nil {
			cfg["knobs"], cfg["command"] = knobs, "printf '%s' {{v}} > out; echo m=1"
		}
		for j, v := range hostileValues(canary) {
			req := request(t, fmt.Sprintf("h%d-%d", i, j), cfg, map[string]string{"v": v})
			r := run(t, tr, req)
			if pwned(canaryDir) {
				t.Fatalf("knobs %v, value %q ran code", knobs, v)
			}
			if r.Status != plugins.StatusInfeasible || !strings.Contains(r.Reason, "the proposal sets v to "+valuetype.Quote(v)+" is not ") {
				t.Errorf("knobs %v, value %q: %s %q", knobs, v, r.Status, r.Reason)
			}
			if _, err := os.Stat(filepath.Join(req.WorkDir, "out")); err == nil {
				t.Errorf("knobs %v, value %q: the command ran", knobs, v)
			}
		}
	}
}

// The forms that run what they are given (bash's eval, Python's exec and
// os.system, awk's system, git's configuration, bash -c itself, a pipe
// into bash), each
// given a value of its knob's type: validate accepts them, since each
// value is one quoted word, and bash runs them with the value as inert
// data: nothing is created, the command finishes. The same forms given a
// shell payload refuse it before anything runs.
func TestHostileFormsRunTypedValuesAsData(t *testing.T) {
	for _, p := range []string{"python3", "awk", "git"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s: %v", p, err)
		}
	}
	forms := []string{
		`env X={{v}} bash -c 'eval "$X"'`,
		`X={{v}} bash -c 'eval "$X"'`,
		`python3 -c 'import sys; exec(sys.argv[1])' {{v}}`,
		`env X={{v}} python3 -c 'import os; os.system(os.environ["X"])'`,
		`env X={{v}} awk 'BEGIN{system(ENVIRON["X"])}'`,
		`git init -q . && git -c {{v}} status`,
		`bash -c {{v}}`,
		`echo {{v}} | bash`,
		`bash <<< {{v}}`,
	}
	// Bash's own grammar refuses what bash itself would run.
	for command, want := range map[string]string{
		`. <(echo {{v}})`: ". runs the file this word names as bash",
		`eval {{v}}`:      "eval reads its operands as shell code",
		`{{v}} --help`:    "a value cannot choose the command",
	} {
		cfg := map[string]any{"command": command, "metric_regex": "m=(1)", "knobs": map[string]any{"v": map[string]any{"default": "x"}}}
		if got := pluginconfig.Join(Schema.Check(cfg)); !strings.Contains(got, want) {
			t.Errorf("%s: validate says %q, want %q", command, got, want)
		}
	}
	// One run gives the form a value of each type, a knob each: a number,
	// a plain word and a string of a pattern that admits all it may.
	knobs := map[string]any{"n": map[string]any{"default": 0.03}, "w": map[string]any{"default": "adam"},
		"s": map[string]any{"default": "x", "pattern": ".*"}}
	edits := []map[string]string{
		{"n": "-1", "w": "touch", "s": "MARK,x:y/z@w"},
		{"n": "1e308", "w": "core.pager", "s": "-rf"},
	}
	canaryDir := t.TempDir()
	hostile := "1$(touch " + filepath.Join(canaryDir, "PWNED") + ")"
	tr := newTrainer()
	for i, form := range forms {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel() // each run is a few processes: overlap them
			var parts []string
			for _, k := range []string{"n", "w", "s"} {
				parts = append(parts, strings.ReplaceAll(form, "{{v}}", "{{"+k+"}}"))
			}
			cfg := map[string]any{"command": strings.Join(parts, "; ") + "; echo m=1", "metric_regex": "m=(1)", "knobs": knobs}
			if ps := Schema.Check(cfg); len(ps) > 0 {
				t.Fatalf("%s: validate refuses it: %s", form, pluginconfig.Join(ps))
			}
			for n, e := range edits {
				req := request(t, fmt.Sprintf("f%d-%d", i, n), cfg, e)
				r := run(t, tr, req)
				if r.Status != plugins.StatusFinished {
					t.Errorf("%s, values %v: %s %s\n%s", form, e, r.Status, r.Reason, r.Logs)
				}
				if made := newFiles(t, req.WorkDir); len(made) > 0 || pwned(canaryDir) {
					t.Errorf("%s, values %v made %v", form, e, made)
				}
			}
			for _, k := range []string{"n", "w", "s"} {
				r := run(t, tr, request(t, fmt.Sprintf("f%d-%s", i, k), cfg, map[string]string{k: hostile}))
				if r.Status != plugins.StatusInfeasible || pwned(canaryDir) {
					t.Errorf("%s: a shell payload for %s: %s %q, pwned %v", form, k, r.Status, r.Reason, pwned(canaryDir))
				}
			}
		})
	}
}

// newFiles lists what a run's command made in its directory besides the
// trainer's own files and what git init writes.
func newFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	own := []string{RecordFile, ResultFile, ScriptFile, StdoutFile, StderrFile, executor.ExitFile, pluginconfig.DefaultOverridesFile, ".git", ".assay-job.sh"}
	var made []string
	for _, e := range es {
		if !slices.Contains(own, e.Name()) && !strings.HasSuffix(e.Name(), ".tmp") {
			made = append(made, e.Name())
		}
	}
	return made
}

// Hostile environment and task names stay inside run.sh's header comment.
func TestHostileNamesInHeader(t *testing.T) {
	canaryDir := t.TempDir()
	canary := filepath.Join(canaryDir, "PWNED")
	for _, name := range []string{"toy\ntouch " + canary, "toy\rtouch " + canary, "toy\x1b[2J\u202etouch " + canary} {
		req := request(t, "hn", map[string]any{"command": "echo m=1", "metric_regex": "m=(1)"}, nil)
		req.Env, req.Task, req.RunID = name, name, name
		r := run(t, newTrainer(), req)
		if pwned(canaryDir) {
			t.Fatalf("name %q ran code", name)
		}
		if r.Status != plugins.StatusFinished {
			t.Fatalf("name %q: %+v", name, r)
		}
		script, _ := os.ReadFile(filepath.Join(req.WorkDir, ScriptFile))
		header := strings.SplitN(string(script), "\n", 3)[1]
		if !strings.HasPrefix(header, "# Assay run ") || strings.ContainsAny(header, "\r\x1b\u202e") {
			t.Errorf("header line %q", header)
		}
	}
}

// A NUL byte is in no value's type: the run is infeasible.
func TestNulValueIsInfeasible(t *testing.T) {
	req := request(t, "nul", map[string]any{"command": "echo {{v}}; echo m=1", "metric_regex": "m=(1)"}, map[string]string{"v": "a\x00b"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := newTrainer()
	h, err := tr.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.Wait(ctx, h)
	if err != nil || r.Status != plugins.StatusInfeasible || !strings.Contains(r.Reason, `it holds "\x00"`) {
		t.Fatalf("%+v %v", r, err)
	}
}

// JSON and YAML overrides encode any value: it reads back unchanged, and
// YAML gets no character it does not allow raw.
func TestOverridesEncodeHostileValues(t *testing.T) {
	values := map[string]string{"a": "x\"y\\z\n", "b": "\x01\x1b[2J\x7f\u0085", "c": "\u2028\ufeff'#: - [", "d": "NaN", "e": "Inf"}
	dir := t.TempDir()
	for _, format := range []string{"json", "yaml"} {
		path := filepath.Join(dir, "o."+format)
		if err := writeOverrides(path, format, values); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		b, _ := os.ReadFile(path)
		for _, r := range string(b) {
			// JSON allows DEL, C1 and the rest raw; YAML does not.
			if format == "yaml" && r != '\n' && (r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0xfeff) {
				t.Errorf("%s: raw %U in %q", format, r, b)
			}
		}
		got := map[string]string{}
		if format == "json" {
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("json: %v\n%s", err, b)
			}
		} else {
			// The YAML written is one double-quoted key and scalar a line,
			// whose escapes JSON shares.
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				k, v, _ := strings.Cut(line, ": ")
				var ks, vs string
				if err := json.Unmarshal([]byte(k), &ks); err != nil {
					t.Fatalf("yaml key %s: %v", k, err)
				}
				if err := json.Unmarshal([]byte(v), &vs); err != nil {
					t.Fatalf("yaml value %s: %v", v, err)
				}
				got[ks] = vs
			}
		}
		for k, v := range values {
			if got[k] != v {
				t.Errorf("%s: %s read back as %q, want %q", format, k, got[k], v)
			}
		}
	}
}

// Bash itself never runs a value, whatever it holds: every template of
// many shapes that compiles is run by bash with each hostile value (none
// of which a type admits, so this is the quoting alone) and none may run
// code. What another program does with its words is the type's business
// (TestHostileFormsRunTypedValuesAsData). The templates listed all
// compile, so the test cannot pass by refusing them.
func TestTemplatesNeverRunValues(t *testing.T) {
	t.Parallel() // thousands of short bash processes: overlap the tests that wait
	dir := t.TempDir()
	canaryDir := filepath.Join(dir, "canary")
	if err := os.Mkdir(canaryDir, 0o755); err != nil {
		t.Fatal(err)
	}
	templates := []string{
		"echo {{x}}", `echo "{{x}}"`, "echo '{{x}}'", `echo $"{{x}}"`,
		"X={{x}}; echo $X", "X={{x}} true", "case {{x}} in a) ;; esac", "case a in {{x}}) ;; esac",
		"for i in {{x}}; do echo $i; done", "echo {{x}} > /dev/null", "cat <<< {{x}}", "echo &>{{x}}", "echo >|{{x}}", "cat <>{{x}}",
		"[[ {{x}} == a ]]", "[[ a == {{x}} ]]", "[[ {{x}} =~ a ]]", "[[ a =~ {{x}} ]]", "[ {{x}} -eq 1 ]", "test {{x}} -gt 1",
		"echo $(echo {{x}})", `echo "$(echo "{{x}}")"`, "echo <(echo {{x}})", "f() { echo {{x}}; }; f",
		`export A={{x}}; bash -c 'echo "$A"'`,
		"declare -x A={{x}}; echo $A", "declare -a A=({{x}}); echo ${A[@]}", "declare A; A+={{x}}",
		"printf {{x}}", "printf '%b' {{x}}", "echo 'a'{{x}}'b'", `echo "a"{{x}}"b"`, "# {{x}}\necho ok",
		". /dev/null {{x}}", "echo --lr={{x}} {{x}}/m.json 'ckpt_'{{x}}.pt", `echo "{{x}}{{x}}"`,
		"echo {{x}} 2>&1", "time echo {{x}}", "select y in {{x}}; do break; done < /dev/null",
		"cd {{x}} 2>/dev/null; true", "shift {{x}} 2>/dev/null", "kill -0 {{x}} 2>/dev/null", "ulimit -t {{x}} 2>/dev/null",
		`bash -c 'echo "$1"' _ {{x}}`, "bash -x -c 'true' {{x}}", "sh -c 'echo $0' {{x}}", "env A={{x}} true",
		"nohup echo {{x}} >/dev/null 2>&1", "command echo {{x}}", "builtin echo {{x}}", "exec echo {{x}}",
		"if [ -n {{x}} ]; then echo; fi", "{ echo {{x}}; }", "( echo {{x}} )", "echo {{x}} | cat",
		"echo {{x}} && echo {{x}} || echo {{x}}",
		"echo {{x}}=1", "echo a={{x}}", "mkdir -p {{x}} 2>/dev/null; true", "echo @{{x}}",
	}
	values := append(hostileValues(filepath.Join(canaryDir, "PWNED")), "*", "-e", "$IFS", "${PATH}", "a b\tc", "'", `"`, `\`, "$", "!!", "\\\n")
	for _, tmpl := range templates {
		ct, err := compileCommand(tmpl)
		if err != nil {
			t.Errorf("%q: %v", tmpl, err)
			continue
		}
		// One bash runs every value's script, each in a subshell of its
		// own (a fork, not a new bash: most of this test's CPU). Should
		// the batch not reach its end (a script that does not parse inside
		// a subshell) or touch the canary, each value runs alone in its
		// own bash, as the spec's command would, to name the culprit.
		if batchRan(dir, ct, values) && !pwned(canaryDir) {
			continue
		}
		if err := os.RemoveAll(canaryDir); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(canaryDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			script := valueScript(ct, v)
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = dir
			_ = cmd.Run() // many of these fail on odd values; only the canary matters
			if pwned(canaryDir) {
				t.Fatalf("template %q, value %q ran code:\n%s", tmpl, v, script)
			}
		}
	}
}

// valueScript is the script the command trainer runs for template ct with
// every reference set to v.
func valueScript(ct *commandTemplate, v string) string {
	var b strings.Builder
	for _, r := range ct.Refs {
		b.WriteString("export " + r.Var + "=" + shellQuote(v) + "\n")
	}
	b.WriteString(ct.Body + "\n")
	return b.String()
}

// batchRan runs valueScript for each of values in dir, each in a subshell
// of one bash, and reports whether that bash reached its end.
func batchRan(dir string, ct *commandTemplate, values []string) bool {
	const end = "assay-batch-end-7f3a"
	var b strings.Builder
	for _, v := range values {
		b.WriteString("(\n" + valueScript(ct, v) + ") </dev/null >/dev/null 2>&1\n")
	}
	b.WriteString("echo " + end + "\n")
	cmd := exec.Command("bash", "-c", b.String())
	cmd.Dir = dir
	out, _ := cmd.Output()
	return strings.HasSuffix(string(out), end+"\n")
}

// A run's command sees config.env and the pass_env names it inherits,
// never the rest of the environment assay runs in: no LLM plugin's key.
func TestCommandEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-local-secret")
	t.Setenv("ASSAY_TEST_PASSED", "passed-through")
	req := request(t, "env", map[string]any{
		"command": "env > env.txt; echo m=1", "metric_regex": "m=(1)",
		"env": map[string]any{"FROM_SPEC": "yes"}, "pass_env": []any{"ASSAY_TEST_PASSED"},
	}, nil)
	if r := run(t, newTrainer(), req); r.Status != plugins.StatusFinished {
		t.Fatalf("got %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(req.WorkDir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	if strings.Contains(env, "sk-local-secret") || strings.Contains(env, "OPENAI_API_KEY") {
		t.Errorf("the command saw the API key:\n%s", env)
	}
	for _, want := range []string{"ASSAY_TEST_PASSED=passed-through", "FROM_SPEC=yes", "PATH="} {
		if !strings.Contains(env, want) {
			t.Errorf("the command lacks %s:\n%s", want, env)
		}
	}
	// A name that is no variable is the config's fault.
	_, err = ParseConfig(map[string]any{"command": "train", "metric_regex": "m=(1)", "pass_env": []any{"A B"}})
	if err == nil || !strings.Contains(err.Error(), `config.pass_env[0]: "A B" is not a variable name`) {
		t.Errorf("pass_env [\"A B\"]: %v", err)
	}
}

// A value inside another language's code (the text of bash -c behind a
// wrapper, python3 -c, perl -e, an awk program) is refused before
// anything runs: it is not a word of its own. Passed as an argument after
// the code, the same value reaches the command intact.
func TestValuesInCodeAreRefused(t *testing.T) {
	canaryDir := t.TempDir()
	value := "$(touch " + filepath.Join(canaryDir, "PWNED") + ")"
	tr := newTrainer()
	for _, command := range []string{
		`timeout 600 bash -c "printf %s {{v}} > out"`,
		`nice -n 1 bash -c "printf %s {{v}} > out"`,
		`stdbuf -oL sh -c "printf %s {{v}} > out"`,
		`echo x | xargs sh -c "printf %s {{v}} > out"`,
		`find . -maxdepth 0 -exec sh -c "printf %s {{v}} > out" \;`,
		`python3 -c "print('{{v}}')"`,
		`perl -e "print '{{v}}'"`,
		`awk "BEGIN { print \"{{v}}\" }"`,
	} {
		req := request(t, "w", map[string]any{"command": command + "; echo m=1", "metric_regex": "m=(1)"}, map[string]string{"v": value})
		_, err := tr.Start(context.Background(), req)
		if !errors.Is(err, plugins.ErrInvalidConfig) || !strings.Contains(err.Error(), "beside the value") {
			t.Errorf("%s: Start = %v, want a config error", command, err)
		}
		if pwned(canaryDir) {
			t.Fatalf("%s ran the value", command)
		}
	}
	req := request(t, "ok", map[string]any{"command": `timeout 600 bash -c 'printf %s "$1" > out' _ {{v}}; echo m=1`, "metric_regex": "m=(1)"}, map[string]string{"v": "a.b+c-1"})
	if r := run(t, tr, req); r.Status != plugins.StatusFinished {
		t.Fatalf("%+v", r)
	}
	if out, _ := os.ReadFile(filepath.Join(req.WorkDir, "out")); string(out) != "a.b+c-1" {
		t.Errorf("the command saw %q", out)
	}
}
