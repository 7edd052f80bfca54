package pluginconfig

import (
	"fmt"
	"slices"
	"strings"
)

// SourcePlaceholders are the placeholders builtin:command's command may
// use when it trains an environment in source mode: the run's facts,
// none of which carries a proposal's content.
var SourcePlaceholders = []string{"env", "gpus", "run_id", "seed", "task", "workdir"}

// knobModeKeys are builtin:command's keys that only knob mode reads: in
// source mode the candidate's commit is the program, so each would have
// no effect.
var knobModeKeys = []string{"apply", "overrides_file", "overrides_format", "repo", "revision"}

// SourceModeWhy is why a source-mode trainer refuses knob mode's config.
const SourceModeWhy = "in source mode a candidate runs exactly its commit: the editable files are the edit surface, which the proposer and the builder are shown, and a change is a patch of them"

// SourceModeProblems are what builtin:command's config cfg must not hold
// when it trains an environment in source mode (a source block): knobs,
// a command placeholder that carries a proposal's content ({{config}},
// a knob's, an edit's), the settings of knob mode, and an ASSAY_CONFIG
// of its own. Each would put something beside the candidate's commit
// into what is measured, or take no effect. `assay validate` and the
// trainer both refuse them, so a run never measures another program.
func SourceModeProblems(cfg map[string]any) []Problem {
	var ps []Problem
	if k, ok := cfg["knobs"].(map[string]any); ok && len(k) > 0 {
		ps = append(ps, Problem{Path: "knobs", Kind: ValueErr, Msg: fmt.Sprintf(
			"a source-mode trainer takes no knobs (%s): remove them and keep the settings in the editable files, or drop the source block to edit knobs",
			strings.Join(sortedKeys(k), ", "))})
	}
	if text, ok := cfg["command"].(string); ok && strings.TrimSpace(text) != "" {
		if t, err := CompileCommand(text); err == nil {
			ps = append(ps, sourceRefs(t)...)
		}
	}
	for _, key := range knobModeKeys {
		if present(cfg, key) { // null is unset: a spec unsets what it extends
			ps = append(ps, Problem{Path: key, Kind: ValueErr, Msg: "a setting of knob mode, which has no effect in source mode: remove it"})
		}
	}
	const overridesVar = "ASSAY_CONFIG names knob mode's overrides file: a program that reads it would measure the overrides, not the candidate; remove it"
	if l, ok := cfg["pass_env"].([]any); ok && slices.Contains(l, any("ASSAY_CONFIG")) {
		ps = append(ps, Problem{Path: "pass_env", Kind: ValueErr, Msg: overridesVar})
	}
	if env, ok := cfg["env"].(map[string]any); ok {
		if present(env, "ASSAY_CONFIG") {
			ps = append(ps, Problem{Path: "env.ASSAY_CONFIG", Kind: ValueErr, Msg: overridesVar})
		}
	}
	return ps
}

// sourceRefs refuses each value t refers to that a source-mode run has
// no value for.
func sourceRefs(t *CommandTemplate) []Problem {
	var ps []Problem
	for _, r := range t.Refs {
		if r.Plain && slices.Contains(SourcePlaceholders, r.Name) {
			continue
		}
		at := ""
		if r.Line > 0 {
			at = fmt.Sprintf("line %d, column %d: ", r.Line, r.Col)
		}
		what := fmt.Sprintf("{{%s}}, a knob's or an edit's value,", r.Name)
		if r.Name == "config" {
			what = "{{config}}, knob mode's overrides file,"
		}
		ps = append(ps, Problem{Path: "command", Kind: ValueErr, Got: r.Name, Known: SourcePlaceholders, Msg: fmt.Sprintf(
			"%s%s has no value in source mode: remove it from the command, which may use %s",
			at, what, placeholderList(SourcePlaceholders))})
	}
	return ps
}

func placeholderList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "{{" + n + "}}"
	}
	return strings.Join(out, ", ")
}

// SourceModeRule says, for the docs, what SourceModeProblems refuses.
func SourceModeRule() string {
	return "when the trainer runs an environment in source mode (a `source` block), `knobs`, " +
		strings.Join(codeWords(knobModeKeys), ", ") + " and an `ASSAY_CONFIG` in `env` or `pass_env` are refused (`E_SOURCE_KNOBS`), " +
		"and so is a placeholder of `command` other than `" + strings.ReplaceAll(placeholderList(SourcePlaceholders), ", ", "`, `") + "`: " + SourceModeWhy +
		". No overrides file is written and ASSAY_CONFIG is not set; the command runs in a checkout of the candidate's commit"
}

func codeWords(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "`" + w + "`"
	}
	return out
}
