package compiler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
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

// setDetail is what every --set error adds: what PATH and VALUE may be.
const setDetail = "PATH names a field as a sweep axis does, or a map entry (prices.gpu_hourly.CPU); VALUE is typed by the field: 9, true, text, a formula, kind.name, [8, 16] or {H100 = 2.5}; V1,V2,... is a sweep axis (assay plan --help)"

// applySettings sets each --set field on the spec, typed by the field's
// schema type, before anything else reads the spec: a setting acts as if
// the spec said it. A value with commas outside quotes and brackets is a
// sweep axis instead. The values are recorded for the plan (plan.Overrides).
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
				WithDetail("--set sets one field of every variant; to change an axis, edit the sweep block, or give --set PATH=V1,V2,... a new axis"))
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
		if parts, offs := spec.SplitTop(st.Value); len(parts) > 1 {
			setAxis(c, st, name, parts, offs)
			continue
		}
		x, err := spec.SetText(c.spec, st.Path, settingText(c.spec, st), st.Range)
		if err != nil {
			c.add(settingError(st, name, err))
			continue
		}
		if c.overrides == nil {
			c.overrides = map[string]any{}
		}
		c.overrides[st.Path] = x
	}
}

// settingError places an error of spec.SetText: at the path, or at its
// offsets inside the value.
func settingError(st Setting, name string, err error) *diag.Diagnostic {
	te, ok := err.(*spec.TextError)
	if !ok || te.Path {
		return diag.Errorf(CodeSetPath, st.PathRange, "%s: %v", name, err).WithDetail("%s", setDetail)
	}
	return diag.Errorf(CodeSetValue, within(st.Range, te.Off, te.End), "%s: %v", name, err).WithDetail("%s", setDetail)
}

// within is the part [off, end) of the one-line range r of a value.
func within(r diag.Range, off, end int) diag.Range {
	start := r.Start
	r.Start.Column, r.Start.Byte = start.Column+off, start.Byte+off
	r.End.Column, r.End.Byte = start.Column+end, start.Byte+end
	return r
}

// settingText is the value of a setting as spec.SetText should read it. An
// entry of a built-in plugin's config whose schema says it is text takes
// the value as text, as a string field does, so model=gpt-5 and
// version=1.0 are both strings.
func settingText(s *spec.Spec, st Setting) string {
	parts := strings.Split(st.Path, ".")
	if len(parts) != 4 || parts[0] != "plugin" || parts[2] != "config" || strings.HasPrefix(st.Value, `"`) {
		return st.Value
	}
	for _, p := range s.Plugins {
		if p.Name != parts[1] {
			continue
		}
		sc, ok := pluginconfig.Lookup(p.Source.V)
		if !ok {
			return st.Value
		}
		if f := sc.Field(parts[3]); f != nil && (f.Type == pluginconfig.String || f.Type == pluginconfig.URL || f.Type == pluginconfig.Regex) {
			return strconv.Quote(st.Value)
		}
	}
	return st.Value
}

// setAxis makes a setting V1,V2,... a sweep axis over its field, as if the
// spec's sweep block had it (a grid unless the spec's sweep is a zip): the
// sweep pass checks and expands it, its errors pointing into the flag.
func setAxis(c *compilation, st Setting, name string, parts []string, offs []int) {
	var lits []spec.Literal
	for i, text := range parts {
		lead := len(text) - len(strings.TrimLeft(text, " \t"))
		text = strings.TrimSpace(text)
		at := within(st.Range, offs[i]+lead, offs[i]+lead+max(len(text), 1))
		lit, err := spec.ParseText(st.Path, text, at)
		if err != nil {
			code := CodeSetPath
			if isValueError(err) {
				code = CodeSetValue
			} else {
				at = st.PathRange
			}
			c.add(diag.Errorf(code, at, "%s: %v", name, err).
				WithDetail("V1,V2,... sweeps a string, number, int or bool field over the values; a list is written [8, 16], and a text with a comma is quoted: PATH=\"a, b\""))
			return
		}
		lits = append(lits, lit)
	}
	if c.spec.Sweep == nil {
		c.spec.Sweep = &spec.Sweep{Range: st.Range}
	}
	c.spec.Sweep.Axes = append(c.spec.Sweep.Axes, &spec.Axis{Name: st.Path, NameRange: st.PathRange, Values: lits, Range: st.Range})
	values := make([]any, len(lits))
	for i, l := range lits {
		values[i] = l.Value()
	}
	if c.overrides == nil {
		c.overrides = map[string]any{}
	}
	c.overrides[st.Path] = values
}

// warnSetRouted warns, as a sweep does (warnRoutedShare, by the same rule
// routingWithoutShare), when --set changes what an RL screen's critic
// routes but not the routed share the estimate assumes. The sweep pass
// calls it: it needs the loops' kinds, which the defaults fill.
func warnSetRouted(c *compilation) {
	set := func(path string) bool { _, ok := c.overrides[path]; return ok }
	for _, st := range c.opts.Set {
		if !set(st.Path) {
			continue
		}
		if name, ok := routingWithoutShare(c.spec, st.Path, set); ok {
			c.add(diag.Warnf(CodeSetRouted, st.PathRange, "--set %s leaves critic %q's expected_routed as it was, so the estimate assumes the same routed share", st.Path, name).
				WithDetail("set critic.%s.expected_routed too, to the share you expect now", name))
		}
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
