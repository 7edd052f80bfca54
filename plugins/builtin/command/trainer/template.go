package trainer

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"assay/plugins/builtin/command/executor"
)

// Placeholders every command may use; each edit of the proposal (and each
// declared knob) adds one more under its own name.
var builtins = []string{"gpus", "config", "workdir", "seed", "task", "env", "run_id"}

var (
	identRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	bareRE        = regexp.MustCompile(`\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}`)
	undefinedFnRE = regexp.MustCompile(`function "([^"]+)" not defined`)
)

// render expands a command template. Values are Go text/template data:
// {{gpus}} and {{.gpus}} both work, as do {{lr}} / {{.lr}} for an edit and
// {{index .edits "optimizer.lr"}} for an edit whose name is no identifier.
// With quote set (the command), every value is quoted for bash, so an edit
// cannot inject shell syntax; {{raw "name"}} inserts a value as it is.
func render(name, text string, vars, edits map[string]string, quote bool) (string, error) {
	q := func(s string) string { return s }
	if quote {
		q = executor.Quote
	}
	data := map[string]any{}
	quotedEdits := map[string]string{}
	funcs := template.FuncMap{
		"raw": func(k string) (string, error) {
			if v, ok := vars[k]; ok {
				return v, nil
			}
			return "", fmt.Errorf("raw %q: no such placeholder", k)
		},
		"quote": executor.Quote,
	}
	for k, v := range edits {
		quotedEdits[k] = q(v)
	}
	data["edits"] = quotedEdits
	for k, v := range vars {
		data[k] = q(v)
		if identRE.MatchString(k) && k != "raw" && k != "quote" && k != "edits" {
			funcs[k] = func() string { return q(v) }
		}
	}
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs).Parse(text)
	if err != nil {
		if m := undefinedFnRE.FindStringSubmatch(err.Error()); m != nil {
			return "", unknownPlaceholder(m[1], vars)
		}
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		if m := regexp.MustCompile(`map has no entry for key "([^"]+)"`).FindStringSubmatch(err.Error()); m != nil {
			return "", unknownPlaceholder(m[1], vars)
		}
		return "", err
	}
	return b.String(), nil
}

func unknownPlaceholder(name string, vars map[string]string) error {
	known := make([]string, 0, len(vars))
	for k := range vars {
		known = append(known, k)
	}
	sort.Strings(known)
	return fmt.Errorf("unknown placeholder {{%s}}: it is neither built in nor an edit of this proposal nor a declared knob; known here: %s",
		name, strings.Join(known, ", "))
}

// checkTemplate parses a template once at config time, for syntax errors;
// names it cannot know yet (edits) are accepted.
func checkTemplate(text string) error {
	funcs := template.FuncMap{"raw": func(string) string { return "" }, "quote": executor.Quote}
	for _, m := range bareRE.FindAllStringSubmatch(text, -1) {
		funcs[m[1]] = func() string { return "" }
	}
	_, err := template.New("command").Funcs(funcs).Parse(text)
	return err
}
