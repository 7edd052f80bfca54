package trainer

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"
)

var (
	identRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	undefinedFnRE = regexp.MustCompile(`function "([^"]+)" not defined`)
	missingKeyRE  = regexp.MustCompile(`map has no entry for key "([^"]+)"`)
)

// render expands a template that is not shell (metric_file): values are Go
// text/template data, {{name}} and {{.name}} alike, inserted as they are.
func render(name, text string, vars map[string]string) (string, error) {
	data := map[string]any{}
	funcs := template.FuncMap{}
	for k, v := range vars {
		data[k] = v
		if identRE.MatchString(k) {
			funcs[k] = func() string { return v }
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
		if m := missingKeyRE.FindStringSubmatch(err.Error()); m != nil {
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
