package valuetype

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Kinds of value, as a spec writes them.
const (
	Number  = "number"
	Integer = "integer"
	Bool    = "bool"
	String  = "string"
)

// Kinds lists the kinds a type may name.
var Kinds = []string{Number, Integer, Bool, String}

// MaxBytes bounds a value of any type.
const MaxBytes = 256

// WordPattern is the pattern of a string type that names none: a plain
// word, which no program reads as an option either.
const WordPattern = `[A-Za-z0-9._+][A-Za-z0-9._+-]*`

// Marks are the characters besides ASCII letters and digits that a string
// may hold, whatever its pattern admits.
const Marks = "._+-,:/@"

// wordDoc says what WordPattern admits, for messages and docs.
const wordDoc = "a plain word (letters, digits and . _ + -, not starting with -)"

var (
	numberRE  = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)
	integerRE = regexp.MustCompile(`^[+-]?[0-9]+$`)
	wordRE    = regexp.MustCompile(`^(?:` + WordPattern + `)$`)
)

// Type is the type of a value. With Values set a value is one of them (and,
// when Kind is set too, each of them is of that kind); otherwise Kind says
// what it is, String when empty.
type Type struct {
	Kind   string
	Values []string
	// Min and Max bound a Number or an Integer when set.
	Min, Max *float64
	// Pattern is the regular expression (RE2) a String matches whole; ""
	// is WordPattern. A match holds only letters, digits and Marks still.
	Pattern string
}

// Error is a value outside its type.
type Error struct {
	Value string // the value, quoted and cut short for a message
	Want  string // what the type admits
}

func (e *Error) Error() string { return e.Value + " is not " + e.Want }

// Check reports whether v is a value of t: nil, or an *Error.
func (t Type) Check(v string) error {
	if len(t.Values) > 0 {
		if !slices.Contains(t.Values, v) {
			return t.errorf(v, "one of %s", strings.Join(t.Values, ", "))
		}
		if t.Kind == "" {
			// A list's values are data too, whoever declared them.
			if len(v) > MaxBytes || Infer(v) == String && !wordRE.MatchString(v) {
				return t.errorf(v, "a number, true, false or %s of at most %d bytes", wordDoc, MaxBytes)
			}
			return nil
		}
	}
	t.Values = nil // what the kind admits, for the message
	return t.checkKind(v)
}

func (t Type) checkKind(v string) error {
	if len(v) > MaxBytes {
		return t.errorf(v, "at most %d bytes long", MaxBytes)
	}
	switch t.Kind {
	case Number, Integer:
		n, ok := parseNumber(v, t.Kind == Integer)
		if !ok {
			return t.errorf(v, "%s", t.Describe())
		}
		if t.Min != nil && n < *t.Min || t.Max != nil && n > *t.Max {
			return t.errorf(v, "%s", t.Describe())
		}
		return nil
	case Bool:
		if v != "true" && v != "false" {
			return t.errorf(v, "true or false")
		}
		return nil
	case String, "":
		if i := strings.IndexFunc(v, notMark); i >= 0 {
			return t.errorf(v, "%s: it holds %q", t.Describe(), v[i:i+1])
		}
		if t.Pattern == "" {
			if !wordRE.MatchString(v) {
				return t.errorf(v, "%s", wordDoc)
			}
			return nil
		}
		re, err := anchored(t.Pattern)
		if err != nil || !re.MatchString(v) {
			return t.errorf(v, "%s", t.Describe())
		}
		return nil
	}
	return t.errorf(v, "a value of the unknown kind %q", t.Kind)
}

// parseNumber reads v as a finite number written in decimal, or as an
// integer that fits 64 bits.
func parseNumber(v string, integer bool) (float64, bool) {
	if integer {
		if !integerRE.MatchString(v) {
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		return float64(n), err == nil
	}
	if !numberRE.MatchString(v) {
		return 0, false
	}
	n, err := strconv.ParseFloat(v, 64)
	return n, err == nil && !math.IsInf(n, 0)
}

// notMark reports whether r may not stand in a string value.
func notMark(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(Marks, r))
}

func anchored(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

func (t Type) errorf(v, format string, args ...any) error {
	return &Error{Value: Quote(v), Want: fmt.Sprintf(format, args...)}
}

// Quote is v quoted for a message, cut to 60 bytes.
func Quote(v string) string {
	if len(v) > 60 {
		return strconv.Quote(v[:60]) + "..."
	}
	return strconv.Quote(v)
}

// Describe says what t admits, e.g. "a number ≥ 0 and ≤ 1".
func (t Type) Describe() string {
	if len(t.Values) > 0 {
		return "one of " + strings.Join(t.Values, ", ")
	}
	switch t.Kind {
	case Number, Integer:
		s := "a number"
		if t.Kind == Integer {
			s = "an integer"
		}
		if t.Min != nil {
			s += " ≥ " + strconv.FormatFloat(*t.Min, 'g', -1, 64)
		}
		if t.Max != nil {
			if t.Min != nil {
				s += " and"
			}
			s += " ≤ " + strconv.FormatFloat(*t.Max, 'g', -1, 64)
		}
		return s
	case Bool:
		return "true or false"
	}
	if t.Pattern == "" {
		return wordDoc
	}
	return fmt.Sprintf("a string matching %s, of letters, digits and %s", t.Pattern, Marks)
}

// Infer is the kind a text reads as: a Number, a Bool, or else a String.
func Infer(v string) string {
	if _, ok := parseNumber(v, false); ok {
		return Number
	}
	if v == "true" || v == "false" {
		return Bool
	}
	return String
}

// Problem says what is wrong with t as a declaration, "" when nothing:
// an unknown kind, bounds on what is not a number, a pattern on what is
// not a string or one that does not compile, a value outside the kind.
func (t Type) Problem() string {
	switch {
	case t.Kind != "" && !slices.Contains(Kinds, t.Kind):
		return fmt.Sprintf("type %q is not one of %s", t.Kind, strings.Join(Kinds, ", "))
	case (t.Min != nil || t.Max != nil) && t.Kind != Number && t.Kind != Integer:
		return "min and max bound a type \"number\" or \"integer\""
	case t.Min != nil && t.Max != nil && *t.Min > *t.Max:
		return fmt.Sprintf("min %g is more than max %g", *t.Min, *t.Max)
	case t.Pattern != "" && t.Kind != String && t.Kind != "":
		return "pattern is the pattern of a type \"string\""
	case t.Pattern != "" && len(t.Values) > 0:
		return "pattern is the pattern of a string without values; with values, a value is one of them"
	}
	if t.Pattern != "" {
		if _, err := anchored(t.Pattern); err != nil {
			return fmt.Sprintf("pattern %q is not a regular expression: %v", t.Pattern, err)
		}
	}
	for i, v := range t.Values {
		err := Type{Values: t.Values}.Check(v)
		if t.Kind != "" {
			err = Type{Kind: t.Kind, Min: t.Min, Max: t.Max}.Check(v)
		}
		if err != nil {
			return fmt.Sprintf("values[%d]: %v", i, err)
		}
	}
	return ""
}
