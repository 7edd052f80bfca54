package pluginconfig

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/template"
)

// CommandPlaceholders are the placeholders every command may use; each
// knob of the config adds one under its own name.
var CommandPlaceholders = []string{"config", "env", "gpus", "run_id", "seed", "task", "workdir"}

// UpdatePlaceholders are those of update_command (see docs/policy-training.md).
var UpdatePlaceholders = []string{"adapter_dir", "algorithm", "base_model", "batch", "clip_high", "clip_low", "epochs", "gpus",
	"kl_coef", "learning_rate", "lora_rank", "previous_adapter", "previous_adapter_dir", "run_id", "seed", "step", "token_level", "weight_decay", "workdir"}

// checkCommandTemplates checks pass_env's and env's names and the knobs'
// types, and compiles builtin:command's templates as the trainer will, so
// `assay validate` refuses a template (a value where bash would read code)
// or a default the trainer would. The trainer decodes its config with the
// same checks.
func checkCommandTemplates(cfg map[string]any) []Problem {
	var ps []Problem
	if l, ok := cfg["pass_env"].([]any); ok {
		for i, x := range l {
			if n, ok := x.(string); ok && !identName.MatchString(n) {
				ps = append(ps, Problem{Path: fmt.Sprintf("pass_env[%d]", i), Kind: ValueErr, Msg: fmt.Sprintf("%q is not a variable name (letters, digits and _, not starting with a digit)", n)})
			}
		}
	}
	ps = append(ps, checkEnvNames(cfg)...)
	ps = append(ps, checkKnobs(cfg)...)
	for _, key := range []string{"command", "update_command"} {
		text, ok := cfg[key].(string)
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		if _, err := CompileCommand(text); err != nil {
			ps = append(ps, Problem{Path: key, Kind: ValueErr, Msg: err.Error()})
		}
	}
	return ps
}

// checkSpecPlaceholders refuses a placeholder of a spec's config that
// names nothing: a bare {{name}} must be built in or a declared knob,
// because the baseline run, which edits nothing, would otherwise fail.
// The trainer, given edits by whoever calls it, checks this per run.
func checkSpecPlaceholders(cfg map[string]any) []Problem {
	var ps []Problem
	knobs := []string{}
	if m, ok := cfg["knobs"].(map[string]any); ok {
		for k := range m {
			knobs = append(knobs, k)
		}
	}
	for _, key := range []string{"command", "update_command"} {
		text, ok := cfg[key].(string)
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		t, err := CompileCommand(text)
		if err != nil {
			continue // checkCommandTemplates reports it
		}
		known := append([]string{}, UpdatePlaceholders...)
		if key == "command" {
			known = append(append([]string{}, CommandPlaceholders...), knobs...)
		}
		sort.Strings(known)
		for _, r := range t.Refs {
			if !r.Plain || slices.Contains(known, r.Name) {
				continue
			}
			msg := fmt.Sprintf("line %d, column %d: unknown placeholder {{%s}}: it is neither built in nor a declared knob", r.Line, r.Col, r.Name)
			if s := closest(r.Name, known); s != "" {
				msg += fmt.Sprintf("; did you mean {{%s}}?", s)
			}
			if key == "command" {
				msg += fmt.Sprintf(" Declare it under knobs with its default, or write {{index .edits %q}} for an edit a proposal may leave unset", r.Name)
			}
			ps = append(ps, Problem{Path: key, Kind: ValueErr, Msg: msg + "; known here: " + strings.Join(known, ", "), Got: r.Name, Known: known})
		}
	}
	if text, ok := cfg["metric_file"].(string); ok {
		// metric_file's placeholders: the command's, but config (the run
		// reads the metric after the overrides file served its purpose).
		known := []string{"env", "gpus", "run_id", "seed", "task", "workdir"}
		known = append(known, knobs...)
		sort.Strings(known)
		if msg := checkPathTemplate(text, known); msg != "" {
			ps = append(ps, Problem{Path: "metric_file", Kind: ValueErr, Msg: msg})
		}
	}
	return ps
}

// checkEnvNames checks the names that become shell variables: env's keys,
// and the knobs when the overrides file is KEY=VALUE lines a shell may
// source.
func checkEnvNames(cfg map[string]any) []Problem {
	var ps []Problem
	env, _ := cfg["env"].(map[string]any)
	for _, k := range sortedKeys(env) {
		if !identName.MatchString(k) {
			ps = append(ps, Problem{Path: "env", Kind: ValueErr, Msg: fmt.Sprintf("%q is not a variable name (letters, digits and _, not starting with a digit)", k)})
		}
	}
	file, _ := cfg["overrides_file"].(string)
	if file == "" {
		file = DefaultOverridesFile
	}
	format, _ := cfg["overrides_format"].(string)
	knobs, _ := cfg["knobs"].(map[string]any)
	if OverridesFormat(file, format) != "env" {
		return ps
	}
	for _, k := range sortedKeys(knobs) {
		if !identName.MatchString(k) {
			ps = append(ps, Problem{Path: "knobs", Kind: ValueErr, Msg: fmt.Sprintf("%q cannot be a line of the KEY=VALUE overrides file %s, which a shell may source; name the knob with letters, digits and _, or use a .json or .yaml overrides file", k, file)})
		}
	}
	return ps
}

// checkPathTemplate renders a path template (Go text/template, as the
// trainer renders metric_file) with every known name, and says what is
// wrong with it: a placeholder that names nothing would leave the path
// unrendered, and the run would report no metric after it ran.
func checkPathTemplate(text string, known []string) string {
	data := map[string]any{}
	funcs := template.FuncMap{}
	for _, k := range known {
		data[k] = "x"
		if identName.MatchString(k) {
			funcs[k] = func() string { return "x" }
		}
	}
	t, err := template.New("metric_file").Option("missingkey=error").Funcs(funcs).Parse(text)
	if err == nil {
		err = t.Execute(io.Discard, data)
	}
	if err == nil {
		return ""
	}
	name := ""
	if m := undefinedRE.FindStringSubmatch(err.Error()); m != nil {
		name = m[1]
	} else if m := missingRE.FindStringSubmatch(err.Error()); m != nil {
		name = m[1]
	} else {
		return strings.TrimPrefix(err.Error(), "template: ")
	}
	msg := fmt.Sprintf("unknown placeholder {{%s}}: it is neither built in nor a declared knob", name)
	if s := closest(name, known); s != "" {
		msg += fmt.Sprintf("; did you mean {{%s}}?", s)
	}
	return msg + "; known here: " + strings.Join(known, ", ")
}

var (
	undefinedRE = regexp.MustCompile(`function "([^"]+)" not defined`)
	missingRE   = regexp.MustCompile(`map has no entry for key "([^"]+)"`)
)

// closest is the name of known nearest to s by edit distance, if near.
func closest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
