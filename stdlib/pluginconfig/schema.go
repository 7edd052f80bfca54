package pluginconfig

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Type is the type of a config value, as written in docs.
type Type string

const (
	String     Type = "string"
	Number     Type = "number"
	Int        Type = "whole number"
	Bool       Type = "bool"
	URL        Type = "http(s) URL"
	Regex      Type = "regular expression"
	Duration   Type = "duration"     // "2h", "90s", or a number of seconds
	Scalar     Type = "scalar"       // string, number or bool
	StringList Type = "list(string)" //
	IntList    Type = "list(whole number)"
	RegexList  Type = "list(regular expression)"
	ScalarList Type = "list(scalar)"
	ScalarMap  Type = "map(scalar)" // key to string, number or bool
	ObjectMap  Type = "map(object)" // key to an object of Fields
	Object     Type = "object"      // an object of Fields
)

// Field declares one config key.
type Field struct {
	Name string
	Type Type
	// Required keys must be present (a required string must not be blank).
	Required bool
	// NonBlank strings must not be empty or only spaces.
	NonBlank bool
	// Default is the value a plugin uses when the key is absent; nil when
	// there is none or it is computed (then DefaultDoc says how).
	Default    any
	DefaultDoc string
	Enum       []string
	// Min and Max bound a number when set; MinExclusive makes Min strict.
	Min, Max     *float64
	MinExclusive bool
	// Groups is the number of capture groups a Regex needs at least.
	Groups int
	// Fields declare the keys of an Object, or of each entry of an ObjectMap.
	Fields []*Field
	Doc    string
}

// Rule relates keys of one config. With OneOf, exactly one of those keys
// must be set; with AnyOf, at least one. With If, the rule applies when If
// is set (and equals IfValue, when that is not empty); then every key of
// Need must be set, and OneOf holds.
type Rule struct {
	OneOf   []string
	AnyOf   []string
	If      string
	IfValue string
	Need    []string
	Why     string
}

// Schema is one built-in plugin's config declaration.
type Schema struct {
	// Builtin is NAME in source = "builtin:NAME".
	Builtin string
	// Kind is the plugin kind the built-in serves.
	Kind   string
	Doc    string
	Fields []*Field
	Rules  []Rule
	// Forbidden keys are refused with their message, e.g. secrets that
	// belong in the environment.
	Forbidden map[string]string
	// TrainsPolicy: an llm built-in that can update a proposer policy (it
	// serves Update); a proposer on one that cannot samples a fixed policy.
	TrainsPolicy bool
	// ServesAdapters: an llm built-in that can point a proposer at an
	// adapter a loop's update command trained (plugins.UpdateRequest's
	// Adapter).
	ServesAdapters bool
	// RetriesKey: an llm built-in that retries a request on its own names
	// the config key that says how often (each attempt may be billed, so
	// the dollar cap holds a call for that many attempts plus one).
	RetriesKey string
	// UpdateKey: a trainer built-in that can run a loop's policy update
	// when its config has this key; "" for one that cannot.
	UpdateKey string
	// Validate checks what fields and rules cannot say (a command
	// template's code), as the plugin itself will; nil when nothing more.
	Validate func(cfg map[string]any) []Problem
	// SpecValidate checks what only a spec's config must meet (a command's
	// bare placeholder must name a declared knob, since a spec's proposals
	// edit knobs): Check runs it, Decode, a plugin's own reading of a
	// config that may come from elsewhere, does not.
	SpecValidate func(cfg map[string]any) []Problem
	// Notes are paragraphs of the reference after the keys and rules
	// (markdown): what the keys together guarantee.
	Notes []string
}

// Field returns the top-level field named name, or nil.
func (s *Schema) Field(name string) *Field { return field(s.Fields, name) }

func field(fs []*Field, name string) *Field {
	for _, f := range fs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Keys lists the declared top-level keys, sorted.
func (s *Schema) Keys() []string { return names(s.Fields) }

func names(fs []*Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	sort.Strings(out)
	return out
}

// ProblemKind classifies a Problem.
type ProblemKind string

const (
	Unknown   ProblemKind = "unknown"   // a key the schema does not declare
	Forbidden ProblemKind = "forbidden" // a key the schema refuses
	Missing   ProblemKind = "missing"   // a required key is absent
	TypeErr   ProblemKind = "type"      // a value of the wrong type
	EnumErr   ProblemKind = "enum"      // a word not among the allowed ones
	ValueErr  ProblemKind = "value"     // the right type but an unusable value
	Conflict  ProblemKind = "conflict"  // keys that exclude each other
)

// Problem is one mistake in a config.
type Problem struct {
	// Path is the key's dotted path inside config, e.g. "knobs.lr.values[1]".
	Path string
	Kind ProblemKind
	// Msg says what is wrong and what to write, without the path.
	Msg string
	// Got is the unknown key, or the word that is not in an enum.
	Got string
	// Known lists the keys allowed where an Unknown key was found, or the
	// words of an enum.
	Known []string
}

func (p Problem) String() string { return "config." + p.Path + ": " + p.Msg }

// Error is a config that does not fit its schema: every problem at once.
type Error struct {
	Builtin  string
	Problems []Problem
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s plugin config: %s", e.Builtin, Join(e.Problems))
}

// Join renders problems as one line, "config.a: ...; config.b: ...".
func Join(ps []Problem) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return strings.Join(out, "; ")
}

// Check reports every problem of cfg, sorted by path; nil when it fits.
// A nil cfg is an empty config.
func (s *Schema) Check(cfg map[string]any) []Problem {
	ps := s.check(cfg)
	if s.SpecValidate != nil {
		ps = append(ps, s.SpecValidate(cfg)...)
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Path < ps[j].Path })
	}
	return ps
}

// check is Check without SpecValidate.
func (s *Schema) check(cfg map[string]any) []Problem {
	var ps []Problem
	for _, k := range sortedKeys(cfg) {
		if msg, ok := s.Forbidden[k]; ok {
			ps = append(ps, Problem{Path: k, Kind: Forbidden, Msg: msg})
		}
	}
	ps = append(ps, checkObject(s.Fields, "", cfg, s.Forbidden)...)
	for _, r := range s.Rules {
		ps = append(ps, r.check(s, cfg)...)
	}
	if s.Validate != nil {
		ps = append(ps, s.Validate(cfg)...)
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Path < ps[j].Path })
	return ps
}

// Decode checks cfg as Check does, but for SpecValidate, and returns a
// copy with every absent key that has a Default set to it. The error is an
// *Error.
func (s *Schema) Decode(cfg map[string]any) (Values, error) {
	if ps := s.check(cfg); len(ps) > 0 {
		return nil, &Error{Builtin: s.Builtin, Problems: ps}
	}
	v := Values{}
	for k, x := range cfg {
		v[k] = x
	}
	for _, f := range s.Fields {
		if _, ok := v[f.Name]; !ok && f.Default != nil {
			v[f.Name] = f.Default
		}
	}
	return v, nil
}

func (r Rule) check(s *Schema, cfg map[string]any) []Problem {
	set := func(k string) bool { return present(cfg, k) }
	if len(r.AnyOf) > 0 {
		for _, k := range r.AnyOf {
			// A blank string is no command.
			if str, ok := cfg[k].(string); set(k) && (!ok || strings.TrimSpace(str) != "") {
				return nil
			}
		}
		return []Problem{{Path: r.AnyOf[0], Kind: Missing, Msg: "missing; " + r.Why}}
	}
	if r.If != "" && !set(r.If) {
		return nil
	}
	if len(r.OneOf) > 0 {
		var got []string
		for _, k := range r.OneOf {
			if set(k) {
				got = append(got, k)
			}
		}
		switch len(got) {
		case 0:
			return []Problem{{Path: r.OneOf[0], Kind: Missing, Msg: "missing; " + r.Why}}
		case 1:
			return nil
		}
		return []Problem{{Path: got[len(got)-1], Kind: Conflict, Msg: fmt.Sprintf("set together with %s; use one (%s)", strings.Join(got[:len(got)-1], ", "), r.Why)}}
	}
	if !set(r.If) {
		return nil
	}
	if r.IfValue != "" {
		if v, _ := cfg[r.If].(string); v != r.IfValue {
			return nil
		}
	}
	var ps []Problem
	for _, k := range r.Need {
		if set(k) {
			continue
		}
		cond := r.If
		if r.IfValue != "" {
			cond = fmt.Sprintf("%s = %q", r.If, r.IfValue)
		}
		if conflicting(s, k) {
			ps = append(ps, Problem{Path: r.If, Kind: Conflict, Msg: fmt.Sprintf("set without %s; %s", k, r.Why)})
			continue
		}
		ps = append(ps, Problem{Path: k, Kind: Missing, Msg: fmt.Sprintf("missing; %s needs it: %s", cond, r.Why)})
	}
	return ps
}

// conflicting reports whether need is one of a OneOf rule's keys. Then its
// absence may be the user's choice of the alternative, and the key that
// needs it is what is out of place rather than need missing: metric_field
// without metric_file, when metric_regex is used instead.
func conflicting(s *Schema, need string) bool {
	return slices.ContainsFunc(s.Rules, func(r Rule) bool { return slices.Contains(r.OneOf, need) })
}

// present reports whether key k is set: absent and null are unset alike.
func present(m map[string]any, k string) bool {
	v, ok := m[k]
	return ok && v != nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// checkObject checks an object's keys against fields.
func checkObject(fields []*Field, path string, m map[string]any, forbidden map[string]string) []Problem {
	var ps []Problem
	for _, k := range sortedKeys(m) {
		if _, ok := forbidden[k]; ok && path == "" {
			continue
		}
		f := field(fields, k)
		if f == nil {
			known := names(fields)
			msg := "unknown setting; known: " + strings.Join(known, ", ")
			if len(known) == 0 {
				msg = "unknown setting; this plugin takes no config"
			}
			ps = append(ps, Problem{Path: join(path, k), Kind: Unknown, Msg: msg, Got: k, Known: known})
			continue
		}
		if m[k] == nil {
			continue // null is unset
		}
		ps = append(ps, checkValue(f, join(path, k), m[k])...)
	}
	for _, f := range fields {
		if !f.Required {
			continue
		}
		if s, isStr := m[f.Name].(string); !present(m, f.Name) || (isStr && strings.TrimSpace(s) == "") {
			msg := "missing; " + f.Doc
			ps = append(ps, Problem{Path: join(path, f.Name), Kind: Missing, Msg: msg})
		}
	}
	return ps
}

// describe renders a value for a type error: its kind, and the value when short.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			return "a string"
		}
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the bool %v", x)
	case []any, []string, []int:
		return "a list"
	case map[string]any, map[string]string:
		return "an object"
	}
	if n, ok := number(v); ok {
		return fmt.Sprintf("the number %v", n)
	}
	return fmt.Sprintf("a %T", v)
}

func typeErr(path string, want string, v any) []Problem {
	return []Problem{{Path: path, Kind: TypeErr, Msg: fmt.Sprintf("want %s, got %s", want, describe(v))}}
}

func valueErr(path, format string, args ...any) []Problem {
	return []Problem{{Path: path, Kind: ValueErr, Msg: fmt.Sprintf(format, args...)}}
}

// number reads the numeric types a config may carry: float64 from the
// spec front ends and JSON, int and int64 from Go callers.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// list reads a list value.
func list(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	case []int:
		out := make([]any, len(l))
		for i, n := range l {
			out[i] = n
		}
		return out, true
	}
	return nil, false
}

// elem is the element type of a list type.
var elem = map[Type]Type{StringList: String, IntList: Int, RegexList: Regex, ScalarList: Scalar}

// checkValue checks one present, non-null value against its field.
func checkValue(f *Field, path string, v any) []Problem {
	if et, ok := elem[f.Type]; ok {
		return checkList(f, et, path, v)
	}
	switch f.Type {
	case String, URL, Regex:
		return checkString(f, path, v)
	case Bool:
		if _, ok := v.(bool); !ok {
			return typeErr(path, "true or false", v)
		}
		return nil
	case Number, Int:
		return checkNumber(f, path, v)
	case Duration:
		return checkDuration(path, v)
	case Scalar:
		return checkScalar(path, v)
	case ScalarMap:
		return checkScalarMap(path, v)
	case Object:
		m, ok := v.(map[string]any)
		if !ok {
			return typeErr(path, "an object", v)
		}
		return checkObject(f.Fields, path, m, nil)
	case ObjectMap:
		return checkObjectMap(f, path, v)
	}
	return valueErr(path, "has an undeclared type %q", f.Type)
}

// checkList checks a list whose elements are of type et.
func checkList(f *Field, et Type, path string, v any) []Problem {
	l, ok := list(v)
	if !ok {
		return typeErr(path, "a list", v)
	}
	ef := *f
	ef.Type = et
	var ps []Problem
	for i, x := range l {
		ps = append(ps, checkValue(&ef, fmt.Sprintf("%s[%d]", path, i), x)...)
	}
	return ps
}

// checkString checks a String, URL or Regex.
func checkString(f *Field, path string, v any) []Problem {
	s, ok := v.(string)
	if !ok {
		return typeErr(path, "a string", v)
	}
	if f.NonBlank && strings.TrimSpace(s) == "" {
		return valueErr(path, "must not be blank")
	}
	if len(f.Enum) > 0 && !slices.Contains(f.Enum, s) {
		return []Problem{{Path: path, Kind: EnumErr, Msg: fmt.Sprintf("%q is not one of %s", s, quoteAll(f.Enum)), Got: s, Known: f.Enum}}
	}
	switch f.Type {
	case URL:
		return checkURL(path, s)
	case Regex:
		return checkRegex(path, s, f.Groups)
	}
	return nil
}

// checkNumber checks a Number or Int.
func checkNumber(f *Field, path string, v any) []Problem {
	n, ok := number(v)
	if !ok {
		return typeErr(path, "a number", v)
	}
	if f.Type == Int && n != math.Trunc(n) {
		return typeErr(path, "a whole number", v)
	}
	return checkRange(f, path, n)
}

// checkDuration checks a Duration: a number of seconds or a Go duration.
func checkDuration(path string, v any) []Problem {
	if n, ok := number(v); ok {
		if n < 0 {
			return valueErr(path, "negative duration %v", n)
		}
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return typeErr(path, "a duration such as \"2h\" or \"90s\", or a number of seconds", v)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return valueErr(path, "%q is not a duration such as \"2h\" or \"90s\"", s)
	}
	if d < 0 {
		return valueErr(path, "negative duration %q", s)
	}
	return nil
}

// checkScalar checks a string, number or bool.
func checkScalar(path string, v any) []Problem {
	if _, ok := v.(string); ok {
		return nil
	}
	if _, ok := v.(bool); ok {
		return nil
	}
	if _, ok := number(v); ok {
		return nil
	}
	return typeErr(path, "a string, number or bool", v)
}

// checkScalarMap checks an object of scalars.
func checkScalarMap(path string, v any) []Problem {
	if sm, ok := v.(map[string]string); ok && sm != nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return typeErr(path, "an object of strings", v)
	}
	var ps []Problem
	sf := &Field{Type: Scalar}
	for _, k := range sortedKeys(m) {
		ps = append(ps, checkValue(sf, join(path, k), m[k])...)
	}
	return ps
}

// checkObjectMap checks an object whose values are objects of f.Fields.
func checkObjectMap(f *Field, path string, v any) []Problem {
	m, ok := v.(map[string]any)
	if !ok {
		return typeErr(path, "an object of objects", v)
	}
	var ps []Problem
	for _, k := range sortedKeys(m) {
		em, ok := m[k].(map[string]any)
		if !ok {
			ps = append(ps, typeErr(join(path, k), "an object with "+strings.Join(names(f.Fields), ", "), m[k])...)
			continue
		}
		ps = append(ps, checkObject(f.Fields, join(path, k), em, nil)...)
	}
	return ps
}

func checkRange(f *Field, path string, n float64) []Problem {
	if f.Min != nil && (n < *f.Min || (f.MinExclusive && n == *f.Min)) {
		rel := "at least"
		if f.MinExclusive {
			rel = "more than"
		}
		return valueErr(path, "must be %s %g, got %g", rel, *f.Min, n)
	}
	if f.Max != nil && n > *f.Max {
		return valueErr(path, "must be at most %g, got %g", *f.Max, n)
	}
	return nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// Values is a decoded config: the spec's values with defaults filled in.
// Its getters assume a config Decode accepted.
type Values map[string]any

// Has reports whether key k has a value.
func (v Values) Has(k string) bool { return present(v, k) }

// String returns k's string value, or "".
func (v Values) String(k string) string { s, _ := v[k].(string); return s }

// Float returns k's numeric value, or 0.
func (v Values) Float(k string) float64 { n, _ := number(v[k]); return n }

// Int returns k's numeric value as an int.
func (v Values) Int(k string) int { return int(v.Float(k)) }

// Bool returns k's bool value, or false.
func (v Values) Bool(k string) bool { b, _ := v[k].(bool); return b }

// Seconds returns k's value, a number of seconds, as a duration.
func (v Values) Seconds(k string) time.Duration {
	return time.Duration(v.Float(k) * float64(time.Second))
}

// checkRegex checks a regular expression with at least groups capture groups.
func checkRegex(path, s string, groups int) []Problem {
	re, err := regexp.Compile(s)
	if err != nil {
		return valueErr(path, "%q is not a regular expression: %v", s, err)
	}
	if re.NumSubexp() < groups {
		return valueErr(path, "%q has no capture group; put the number in one, e.g. \"loss=([0-9.eE+-]+)\"", s)
	}
	return nil
}

// checkURL checks an http(s) API root. A credential in it (user info, a
// key in the query) is refused without quoting the value, which would
// repeat the secret.
func checkURL(path, s string) []Problem {
	if s == "" {
		return nil // a blank required one is reported as missing
	}
	u, err := url.Parse(s)
	if err == nil && u.User != nil {
		return valueErr(path, "carries user info (user:password@); a credential never belongs in the spec: drop it and pass the key through the environment")
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return valueErr(path, "%q is not an http(s) URL such as \"http://127.0.0.1:8000/v1\"", s)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#") {
		return valueErr(path, "carries a query string or fragment (?...); a key such as ?api-key=K never belongs in the spec, and each request adds its own path to this root: drop it and pass the key through the environment (api_key_env)")
	}
	return nil
}
