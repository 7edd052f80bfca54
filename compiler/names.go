package compiler

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// Names a spec declares end up in terminals (plan, estimate, progress),
// file headers, run scripts and reports. A control character there can end
// a line, rewrite the screen (ANSI escapes) or, for bidirectional and other
// invisible format characters, make a name read as something it is not; so
// every name is checked once, on the unswept spec, generically over the
// schema: each block label and each "name" attribute.

// badNameRune reports whether r may not appear in a name, and says what it is.
func badNameRune(r rune) (string, bool) {
	switch {
	case r == utf8.RuneError:
		return "an invalid UTF-8 byte", true
	case r == 0:
		return "NUL", true
	case r == '\n':
		return "a newline", true
	case r == '\r':
		return "a carriage return", true
	case r == '\t':
		return "a tab", true
	case r == 0x1b:
		return "an escape (ESC: it starts terminal control sequences)", true
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return fmt.Sprintf("the control character %U", r), true
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
		return fmt.Sprintf("the bidirectional control %U (it reorders how text is shown)", r), true
	case r == 0x2028 || r == 0x2029:
		return fmt.Sprintf("the line separator %U", r), true
	case unicode.Is(unicode.Cf, r):
		return fmt.Sprintf("the invisible format character %U", r), true
	}
	return "", false
}

// nameProblem finds the first character of name that may not stand in it.
func nameProblem(name string) (what string, at int, ok bool) {
	n := 0
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && size <= 1 {
			return "an invalid UTF-8 byte", n + 1, true
		}
		if w, bad := badNameRune(r); bad {
			return w, n + 1, true
		}
		i += size
		n++
	}
	return "", 0, false
}

// visibleName is name without the characters names may not hold: the
// suggestion of what to write instead.
func visibleName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(name, "") {
		if _, bad := badNameRune(r); !bad {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkNames reports every declared name that holds a control, bidi or
// other invisible format character.
func checkNames(c *compilation) {
	s := c.spec
	if s == nil {
		return
	}
	report := func(what, name string, at diag.Range) {
		bad, pos, ok := nameProblem(name)
		if !ok {
			return
		}
		if !at.Valid() {
			at = s.Range
		}
		d := diag.Errorf(CodeNameChars, at, "%s %s holds %s at character %d", what, strconv.Quote(name), bad, pos)
		if v := visibleName(name); v != "" {
			d.WithDetail("Names may hold only visible characters, so that they print as they are; rename it, e.g. to %s.", strconv.Quote(v))
		} else {
			d.WithDetail("Names may hold only visible characters, so that they print as they are; rename it.")
		}
		c.add(d)
	}
	walkNames(reflect.ValueOf(s).Elem(), spec.Describe(), "", report)
}

// walkNames calls fn for each block label and "name" attribute under block
// value v.
func walkNames(v reflect.Value, b *spec.BlockSchema, prefix string, fn func(what, name string, at diag.Range)) {
	for _, f := range b.Fields {
		fv := spec.FieldValue(v, f)
		path := f.Name
		if prefix != "" {
			path = prefix + "." + f.Name
		}
		switch f.Kind {
		case spec.Attr:
			if f.Name != "name" {
				continue
			}
			if val, ok := fv.Interface().(spec.Val[string]); ok && val.Set {
				what := path
				if what == "name" {
					what = "the spec's name"
				}
				fn(what, val.V, val.Range)
			}
		case spec.Block:
			if !fv.IsNil() {
				walkNames(fv.Elem(), f.Block, path, fn)
			}
		case spec.Blocks:
			for i := 0; i < fv.Len(); i++ {
				e := fv.Index(i).Elem()
				name := e.FieldByName("Name").String()
				var at diag.Range
				if r, ok := e.FieldByName("NameRange").Interface().(diag.Range); ok {
					at = r
				}
				fn(f.Name+" name", name, at)
				walkNames(e, f.Block, path+"."+visibleName(name), fn)
			}
		}
	}
}
