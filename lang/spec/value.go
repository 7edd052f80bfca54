package spec

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
)

// Val is one attribute value with its provenance. Set is false when the spec
// did not give the value (a preset or the compiler's documented default may
// then fill it); the compiler never silently invents a value for a field
// that has no documented default.
type Val[T any] struct {
	V     T
	Set   bool
	Range diag.Range
}

// Of returns a set value with a range.
func Of[T any](v T, r diag.Range) Val[T] { return Val[T]{V: v, Set: true, Range: r} }

// Or returns the value when set, else def.
func (v Val[T]) Or(def T) T {
	if v.Set {
		return v.V
	}
	return def
}

// MarshalJSON writes the bare value, or null when unset; ranges are not part
// of a spec's meaning.
func (v Val[T]) MarshalJSON() ([]byte, error) {
	if !v.Set {
		return []byte("null"), nil
	}
	return json.Marshal(v.V)
}

// UnmarshalJSON reads a bare value; null leaves it unset.
func (v *Val[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = Val[T]{}
		return nil
	}
	if err := json.Unmarshal(b, &v.V); err != nil {
		return err
	}
	v.Set = true
	return nil
}

// Ref is a reference to another block, written `role.rwm` in HCL or
// "role.rwm" in CUE. Kind is the block type (plugin, role, reward, critic,
// loop, environment) and Name its label. The compiler's resolve pass checks
// that the target exists.
type Ref struct {
	Kind  string
	Name  string
	Set   bool
	Range diag.Range
}

// String renders the reference as users write it.
func (r Ref) String() string {
	if !r.Set {
		return ""
	}
	return r.Kind + "." + r.Name
}

// MarshalJSON writes "kind.name", or null when unset.
func (r Ref) MarshalJSON() ([]byte, error) {
	if !r.Set {
		return []byte("null"), nil
	}
	return json.Marshal(r.String())
}

// UnmarshalJSON reads "kind.name"; null leaves the reference unset. Presets
// and other data files use it.
func (r *Ref) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = Ref{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a reference must be a string \"kind.name\": %w", err)
	}
	ref, err := ParseRef(s)
	if err != nil {
		return err
	}
	*r = ref
	return nil
}

// ParseRef parses "kind.name" (e.g. "role.rwm") into a set Ref without a
// range. Both parts must be non-empty and there must be exactly one dot.
func ParseRef(s string) (Ref, error) {
	kind, name, ok := strings.Cut(s, ".")
	if !ok || kind == "" || name == "" || strings.Contains(name, ".") {
		return Ref{}, fmt.Errorf("a reference is written kind.name, e.g. role.rwm; got %q", s)
	}
	return Ref{Kind: kind, Name: name, Set: true}, nil
}

// Formula is source text in Assay's formula language (package lang/formula),
// e.g. "clip(predicted_gain / scale, -c, c) + diversity_bonus". It is parsed
// and type-checked by the compiler, which reports errors at Range offset by
// the position inside the text.
type Formula = Val[string]

// Literal is a sweep value: a number, a string or a bool.
type Literal struct {
	Num   float64
	Str   string
	Bool  bool
	Kind  LiteralKind
	Range diag.Range
}

// LiteralKind says which field of a Literal holds the value.
type LiteralKind int

const (
	LitNumber LiteralKind = iota
	LitString
	LitBool
)

// Value returns the literal as a Go value (float64, string or bool).
func (l Literal) Value() any {
	switch l.Kind {
	case LitString:
		return l.Str
	case LitBool:
		return l.Bool
	}
	return l.Num
}

// MarshalJSON writes the bare value.
func (l Literal) MarshalJSON() ([]byte, error) { return json.Marshal(l.Value()) }

// Spread is a figure the estimate assumes: one number, or the three
// figures { low, expected, high }. Ranged says which the spec wrote, so the
// compiler can apply a field's documented meaning of one number (a routed
// share of one number still ranges up to 1).
type Spread struct {
	Low, Expected, High float64
	Ranged              bool
}

// One is a Spread of one number.
func One(x float64) Spread { return Spread{Low: x, Expected: x, High: x} }

// Plain is the Spread as the spec wrote it: a float64, or a map with keys
// low, expected and high.
func (s Spread) Plain() any {
	if !s.Ranged {
		return s.Expected
	}
	return map[string]any{"low": s.Low, "expected": s.Expected, "high": s.High}
}

// MarshalJSON writes the number, or the object.
func (s Spread) MarshalJSON() ([]byte, error) { return json.Marshal(s.Plain()) }

// UnmarshalJSON reads a number, or an object with exactly the keys low,
// expected and high, as SpreadFrom does.
func (s *Spread) UnmarshalJSON(b []byte) error {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	sp, err := SpreadFrom(x)
	if err != nil {
		return fmt.Errorf("an assumed figure must be %v", err)
	}
	*s = sp
	return nil
}

// SpreadFrom reads a Spread from plain Go values as front ends decode
// them: a number, or a map with exactly the keys low, expected and high,
// each a number. The error completes "FIELD must be ...".
func SpreadFrom(x any) (Spread, error) {
	switch v := x.(type) {
	case float64:
		return One(v), nil
	case int:
		return One(float64(v)), nil
	case map[string]any:
		var out [3]float64
		for k := range v {
			if k != "low" && k != "expected" && k != "high" {
				return Spread{}, fmt.Errorf("a number or { low, expected, high }; %q is not one of these keys", k)
			}
		}
		for i, k := range [3]string{"low", "expected", "high"} {
			n, ok := v[k]
			if !ok {
				return Spread{}, fmt.Errorf("a number or { low, expected, high }; %s is missing", k)
			}
			switch f := n.(type) {
			case float64:
				out[i] = f
			case int:
				out[i] = float64(f)
			default:
				return Spread{}, fmt.Errorf("a number or { low, expected, high }; %s is not a number", k)
			}
			if math.IsInf(out[i], 0) || math.IsNaN(out[i]) {
				return Spread{}, fmt.Errorf("a number or { low, expected, high } of finite numbers")
			}
		}
		return Spread{Low: out[0], Expected: out[1], High: out[2], Ranged: true}, nil
	}
	return Spread{}, fmt.Errorf("a number or { low = .., expected = .., high = .. }")
}
