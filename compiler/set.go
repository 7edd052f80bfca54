package compiler

import (
	"fmt"
	"strings"

	"assay/lang/diag"
	"assay/lang/spec"
)

// Setting is one --set PATH=VALUE from the command line: a field addressed
// the way a sweep axis addresses it, with its value as typed. Range points
// at the value, so diagnostics about it (and about the field it sets) name
// the flag.
type Setting struct {
	Path  string
	Value string
	Range diag.Range
	// PathRange points at PATH, for errors about the path.
	PathRange diag.Range
}

// SetSource is the file name of --set diagnostics: the i-th --set argument
// is line i+1 of it, so a caller can show the arguments as snippets
// (SetSourceText).
const SetSource = "--set"

// ParseSettings splits raw PATH=VALUE arguments into settings. The i-th
// argument is line i+1 of SetSource.
func ParseSettings(raw []string) ([]Setting, diag.Diagnostics) {
	var out []Setting
	var ds diag.Diagnostics
	for i, a := range raw {
		line := diag.Range{Filename: SetSource, Start: diag.Pos{Line: i + 1, Column: 1}, End: diag.Pos{Line: i + 1, Column: len(a) + 1}}
		path, value, ok := strings.Cut(a, "=")
		path = strings.TrimSpace(path)
		if !ok || path == "" {
			ds = ds.Append(diag.Errorf(CodeSetSyntax, line, "--set %q is not an assignment", a).
				WithDetail("Write --set PATH=VALUE, where PATH names a field as a sweep axis does, e.g. --set critic.screen.votes=9 or --set loop.policy.steps=40."))
			continue
		}
		at := line
		at.Start.Column = len(a) - len(value) + 1
		if value == "" {
			at.End.Column = at.Start.Column + 1
		}
		pr := line
		pr.End.Column = len(path) + 1
		if lead := len(a) - len(strings.TrimLeft(a, " \t")); lead > 0 {
			pr.Start.Column += lead
			pr.End.Column += lead
		}
		out = append(out, Setting{Path: path, Value: value, Range: at, PathRange: pr})
	}
	return out, ds
}

// SetSourceText is the text of SetSource for the raw arguments, for
// diagnostic snippets.
func SetSourceText(raw []string) []byte {
	return []byte(strings.Join(raw, "\n") + "\n")
}

// applySettings sets each --set field on the spec, typed by the field's
// schema type, before anything else reads the spec: a setting acts as if
// the spec said it. The values are recorded for the plan (plan.Overrides).
func applySettings(c *compilation) {
	if len(c.opts.Set) == 0 {
		return
	}
	last := map[string]int{}
	for i, st := range c.opts.Set {
		last[st.Path] = i
	}
	for i, st := range c.opts.Set {
		name := fmt.Sprintf("--set %s=%s", st.Path, st.Value)
		switch {
		case st.Path == "sweep" || strings.HasPrefix(st.Path, "sweep."):
			c.add(diag.Errorf(CodeSetPath, st.PathRange, "%s: a sweep's axes cannot be set", name).
				WithDetail("--set sets one field of every variant; to change an axis, edit the sweep block"))
			continue
		case st.Path == "extends" || st.Path == "variable" || strings.HasPrefix(st.Path, "variable."):
			c.add(diag.Errorf(CodeSetPath, st.PathRange, "%s: %s is read while the spec loads, before --set applies", name, st.Path).
				WithDetail("set a variable's value with -var NAME=VALUE"))
			continue
		case last[st.Path] != i:
			c.add(diag.Errorf(CodeSetPath, st.PathRange, "%s: %s is set again by a later --set", name, st.Path).
				WithDetail("give each field one --set"))
			continue
		}
		if c.spec.Sweep != nil {
			if ax := axisOf(c.spec.Sweep.Axes, st.Path); ax != nil {
				c.add(diag.Errorf(CodeSetPath, st.PathRange, "%s: the sweep's axis %q sets this field in every variant", name, st.Path).
					WithDetail("remove the axis from the sweep, or drop this --set"))
				continue
			}
		}
		lit, err := spec.ParseText(st.Path, st.Value, st.Range)
		if err == nil {
			err = spec.SetPath(c.spec, st.Path, lit)
		}
		if err != nil {
			code, at := CodeSetPath, st.PathRange
			if isValueError(err) {
				code, at = CodeSetValue, st.Range
			}
			c.add(diag.Errorf(code, at, "%s: %v", name, err).
				WithDetail("PATH names a string, number, int or bool field as a sweep axis does, e.g. critic.screen.votes or loop.policy.steps; VALUE is typed by that field"))
			continue
		}
		if c.overrides == nil {
			c.overrides = map[string]any{}
		}
		c.overrides[st.Path] = lit.Value()
	}
}

// warnSetRouted warns, as a sweep does (warnRoutedShare), when --set
// changes what an RL screen's critic routes (its votes or threshold) but
// not the routed share the estimate assumes. The sweep pass calls it: it
// needs the loops' kinds, which the defaults fill.
func warnSetRouted(c *compilation) {
	for _, st := range c.opts.Set {
		parts := strings.Split(st.Path, ".")
		if len(parts) != 3 || parts[0] != "critic" || (parts[2] != "votes" && parts[2] != "threshold") {
			continue
		}
		if _, ok := c.overrides[st.Path]; !ok {
			continue
		}
		if _, ok := c.overrides["critic."+parts[1]+".expected_routed"]; ok || !screensRL(c.spec, parts[1]) {
			continue
		}
		c.add(diag.Warnf(CodeSetRouted, st.PathRange, "--set %s leaves critic %q's expected_routed as it was, so the estimate assumes the same routed share", st.Path, parts[1]).
			WithDetail("set critic.%s.expected_routed too, to the share you expect now", parts[1]))
	}
}

func axisOf(axes []*spec.Axis, path string) *spec.Axis {
	for _, ax := range axes {
		if ax.Name == path {
			return ax
		}
	}
	return nil
}
