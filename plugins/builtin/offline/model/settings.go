package model

import (
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/assay-lang/assay/plugins/payload"
)

// setting is one named numeric setting of an editable file, as the
// offline model reads a program: a constant, a variable, a struct-literal
// field or a config entry set to a number literal.
type setting struct {
	file, line int // indexes into the files shown and the file's lines
	path, name string
	value      string
	lo, hi     int // the literal's byte span in its line
}

// assignRE finds NAME [: TYPE] OP NUMBER, the name optionally quoted (a
// JSON or YAML key), OP one of = : := (:= is found to be refused: a Go
// local is no setting). What is around a match is checked by hand
// (settingsOf), since RE2 has no lookaround.
var assignRE = regexp.MustCompile(`["']?([A-Za-z_][A-Za-z0-9_.-]*)["']?(\s*:\s*[A-Za-z_][A-Za-z0-9_.\[\]]*)?\s*(:=|=|:)\s*(-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)`)

// typeWords are type names that stand between a name and its value
// ("var lr float64 = 0.1", "int width = 8"): the setting is the word
// before them.
var typeWords = []string{"float64", "float32", "float", "double", "int", "int64", "int32", "int16", "int8",
	"uint", "uint64", "uint32", "long", "short", "number", "real", "f64", "f32", "i64", "i32", "u64", "u32", "usize", "isize"}

// skipLine reports lines whose assignments are no setting: comments and
// control flow ("for i := 0", "if n == 3", "case 2:").
func skipLine(trimmed string) bool {
	for _, p := range []string{"//", "#", "/*", "*", "--", ";", "for ", "if ", "while ", "switch ", "return ", "case ", "elif ", "until ", "else"} {
		if strings.HasPrefix(trimmed, p) {
			return true
		}
	}
	return false
}

// settingsOf lists the numeric settings of the files a request shows, in
// file and line order; a file that was cut (Truncated) is left out, since
// a patch of what was not seen may not apply.
func settingsOf(src *payload.SourceContext) []setting {
	if src == nil {
		return nil
	}
	var out []setting
	for fi, f := range src.Files {
		if f.Truncated {
			continue
		}
		goFile := path.Ext(f.Path) == ".go"
		block := false // inside a Go const ( ... ) or var ( ... ) block
		for li, line := range strings.Split(f.Content, "\n") {
			trimmed := strings.TrimSpace(line)
			if goFile {
				switch {
				case trimmed == "const (" || trimmed == "var (":
					block = true
					continue
				case block && strings.HasPrefix(trimmed, ")"):
					block = false
					continue
				}
			}
			if skipLine(trimmed) {
				continue
			}
			decl := !goFile || block || strings.HasPrefix(trimmed, "const ") || strings.HasPrefix(trimmed, "var ")
			out = append(out, lineSettings(fi, li, f.Path, line, decl)...)
		}
	}
	return out
}

// lineSettings are the settings of one line. decl is whether an "="
// there declares one (in Go, only a const or var does: "x = 1" in a
// function body assigns a variable).
func lineSettings(fi, li int, file, line string, decl bool) []setting {
	var out []setting
	for off := 0; off < len(line); {
		m := assignRE.FindStringSubmatchIndex(line[off:])
		if m == nil {
			break
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += off
			}
		}
		start, end := m[0], m[1]
		name := line[m[2]:m[3]]
		op := line[m[6]:m[7]]
		if start > 0 && (isNameByte(line[start-1]) || line[start-1] == '[') || !valueEnds(line[end:]) {
			off = start + 1
			continue
		}
		off = end
		if slices.Contains(typeWords, name) {
			// "int width = 8": the name is the word before the type.
			prev := strings.Fields(line[:m[2]])
			if len(prev) == 0 {
				continue
			}
			name = strings.TrimFunc(prev[len(prev)-1], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
		}
		if op == ":=" || op == "=" && !decl || len(name) < 2 || slices.Contains(typeWords, name) {
			continue
		}
		out = append(out, setting{file: fi, line: li, path: file, name: name, value: line[m[8]:m[9]], lo: m[8], hi: m[9]})
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// valueEnds reports whether rest, what follows a number, ends a value: the
// line's end, a separator or a comment, not an expression ("2 * n") or
// more of a word ("1.5f", "3rd").
func valueEnds(rest string) bool {
	if rest != "" && isNameByte(rest[0]) {
		return false
	}
	r := strings.TrimSpace(rest)
	if r == "" {
		return true
	}
	for _, p := range []string{",", ";", "}", ")", "]", "//", "#", "/*", "--"} {
		if strings.HasPrefix(r, p) {
			return true
		}
	}
	return false
}

// nameKey is a name as the offline model compares names: lower case,
// without separators ("init_scale", "InitScale" and "init-scale" agree).
func nameKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// nameWords splits a setting's name into lower-case words: camelCase,
// snake_case, dotted and dashed names alike ("defaultInitScale" is
// default, init, scale; "optimizer.lr" is optimizer, lr).
func nameWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// mechanisms maps words of a setting's name to the mechanism direction a
// change of it takes, first match winning.
var mechanisms = []struct {
	mechanism string
	words     []string
}{
	{"regularisation", []string{"l1", "l2", "dropout", "weight_decay", "wd", "decay", "regularization", "regularisation", "penalty"}},
	{"initialisation", []string{"init", "initialization", "initialisation"}},
	{"schedule", []string{"epochs", "epoch", "steps", "step", "schedule", "warmup", "iters", "iterations"}},
	{"architecture", []string{"hidden", "width", "layers", "layer", "depth", "dim", "heads", "units", "channels", "embd", "embed"}},
	{"optimizer", []string{"lr", "learning_rate", "rate", "momentum", "beta", "beta1", "beta2", "eps", "batch", "batch_size"}},
}

// mechanismOf is the mechanism direction of a change of setting name.
func mechanismOf(name string) string {
	words := nameWords(name)
	for _, m := range mechanisms {
		for i, w := range words {
			if slices.Contains(m.words, w) || i+1 < len(words) && slices.Contains(m.words, w+"_"+words[i+1]) {
				return m.mechanism
			}
		}
	}
	return "tuning"
}

// ladder is the values a change of a setting proposes: its value a
// quarter, half, twice and four times over (a small number for a zero),
// each with its distance from the current value in halvings or
// doublings, in the literal's style.
func ladder(lit string) (values []string, dist []float64) {
	x, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, nil
	}
	isInt := !strings.ContainsAny(lit, ".eE")
	if x == 0 {
		if isInt {
			return []string{"1", "2", "4"}, []float64{1, 2, 3}
		}
		return []string{"0.0001", "0.001", "0.01"}, []float64{1, 2, 3}
	}
	seen := map[string]bool{lit: true}
	for _, k := range []float64{0.25, 0.5, 2, 4} {
		v := formatLike(lit, x*k)
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		values = append(values, v)
		dist = append(dist, math.Abs(math.Log2(k)))
	}
	return values, dist
}

// formatLike writes x in lit's style: a whole number for an integer
// literal ("" when x rounds to zero or to lit), a decimal point kept for
// a decimal one.
func formatLike(lit string, x float64) string {
	if !strings.ContainsAny(lit, ".eE") {
		n := int64(math.Round(x))
		if n == 0 || strconv.FormatInt(n, 10) == lit {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	s := strconv.FormatFloat(x, 'g', 6, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// sameNumber reports whether two literals are the same number.
func sameNumber(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && x == y
}
