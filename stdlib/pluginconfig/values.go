package pluginconfig

import (
	"sort"
	"strconv"
	"strings"
	"time"
)

// Getters of the composite types, for a plugin that decodes its config with
// Decode. Like the scalar getters they assume a config Decode accepted: a
// value of another type reads as empty.

// Duration returns a Duration key's value: a number of seconds or a Go
// duration such as "2h" (0 when absent).
func (v Values) Duration(k string) time.Duration {
	if n, ok := number(v[k]); ok {
		return time.Duration(n * float64(time.Second))
	}
	s, _ := v[k].(string)
	d, _ := time.ParseDuration(s)
	return d
}

// Strings returns a StringList or RegexList key's value.
func (v Values) Strings(k string) []string {
	l, _ := list(v[k])
	var out []string
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// Ints returns an IntList key's value.
func (v Values) Ints(k string) []int {
	l, _ := list(v[k])
	var out []int
	for _, x := range l {
		n, _ := number(x)
		out = append(out, int(n))
	}
	return out
}

// Scalar returns a Scalar key's value as the text a program sees: a string
// as it is, a number in its shortest form, a bool as true or false.
func (v Values) Scalar(k string) string { return scalarText(v[k]) }

// Scalars returns a ScalarList key's value, each as Scalar renders it.
func (v Values) Scalars(k string) []string {
	l, _ := list(v[k])
	var out []string
	for _, x := range l {
		out = append(out, scalarText(x))
	}
	return out
}

// ScalarMap returns a ScalarMap key's value, each entry as Scalar renders
// it; nil when absent.
func (v Values) ScalarMap(k string) map[string]string {
	switch m := v[k].(type) {
	case map[string]string:
		return m
	case map[string]any:
		out := make(map[string]string, len(m))
		for name, x := range m {
			out[name] = scalarText(x)
		}
		return out
	}
	return nil
}

// Entries returns an ObjectMap key's entries, sorted by name.
func (v Values) Entries(k string) []Entry {
	m, _ := v[k].(map[string]any)
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]Entry, 0, len(m))
	for _, name := range names {
		em, _ := m[name].(map[string]any)
		out = append(out, Entry{Name: name, Values: Values(em)})
	}
	return out
}

// Entry is one entry of an ObjectMap: its name and its keys.
type Entry struct {
	Name string
	Values
}

func scalarText(x any) string {
	switch x := x.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	if n, ok := number(x); ok {
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	return ""
}

// OverridesFormat is builtin:command's overrides format: format when the
// config sets one, else from the overrides file's extension (.yaml or .yml
// yaml, .json json, anything else env), as the overrides_format field's
// DefaultDoc says.
func OverridesFormat(file, format string) string {
	switch {
	case format != "":
		return format
	case strings.HasSuffix(file, ".yaml"), strings.HasSuffix(file, ".yml"):
		return "yaml"
	case strings.HasSuffix(file, ".json"):
		return "json"
	}
	return "env"
}
