package hcl

import (
	"fmt"
	"math"
	"math/big"

	"github.com/zclconf/go-cty/cty"

	"github.com/assay-lang/assay/lang/spec"
)

func bigFloat(v cty.Value) float64 {
	f, _ := v.AsBigFloat().Float64()
	return f
}

// goValue converts a known cty value to plain Go: float64, string, bool,
// []any, map[string]any (nil for null).
func goValue(v cty.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	t := v.Type()
	switch {
	case t == cty.Number:
		return bigFloat(v)
	case t == cty.String:
		return v.AsString()
	case t == cty.Bool:
		return v.True()
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, goValue(e))
		}
		return out
	case t.IsMapType() || t.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = goValue(e)
		}
		return out
	}
	return nil
}

// typeError is the end of "FIELD must be ...", e.g. "a whole number, got 8.5".
type typeError string

func (e typeError) Error() string { return string(e) }

func mismatch(want string, v cty.Value) error {
	return typeError(fmt.Sprintf("%s, got %s", want, describe(v)))
}

// describe renders a value for a type error: the value itself when short.
func describe(v cty.Value) string {
	switch v.Type() {
	case cty.Number:
		return fmt.Sprint(bigFloat(v))
	case cty.String:
		s := v.AsString()
		if len(s) > 30 {
			s = s[:30] + "..."
		}
		return fmt.Sprintf("the string %q", s)
	case cty.Bool:
		return fmt.Sprint(v.True())
	}
	return "a " + v.Type().FriendlyName()
}

// toGo converts v to the Go type of a model field type (see spec.Field.Type).
func toGo(v cty.Value, typ string) (any, error) {
	conv, ok := converters[typ]
	if !ok {
		return nil, typeError("of an unsupported type " + typ)
	}
	return conv(v)
}

// converters holds one conversion per model field type.
var converters = map[string]func(cty.Value) (any, error){
	"string":       toString,
	"formula":      toString,
	"number":       toNumber,
	"int":          toInt,
	"bool":         toBool,
	"any":          func(v cty.Value) (any, error) { return goValue(v), nil },
	"spread":       toSpread,
	"list(int)":    toIntList,
	"list(number)": toNumberList,
	"list(string)": toStringList,
	"map(number)":  toNumberMap,
	"map(any)":     toAnyMap,
}

func toString(v cty.Value) (any, error) {
	if v.Type() != cty.String {
		return nil, mismatch("a string", v)
	}
	return v.AsString(), nil
}

func toNumber(v cty.Value) (any, error) {
	if v.Type() != cty.Number {
		return nil, mismatch("a number", v)
	}
	f := bigFloat(v)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, mismatch("a finite number", v)
	}
	return f, nil
}

func toBool(v cty.Value) (any, error) {
	if v.Type() != cty.Bool {
		return nil, mismatch("true or false", v)
	}
	return v.True(), nil
}

// toSpread reads a bare number or { low, expected, high }.
func toSpread(v cty.Value) (any, error) {
	if v.Type() == cty.Number {
		f := bigFloat(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, mismatch("a finite number", v)
		}
		return spec.One(f), nil
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, mismatch("a number, or { low = .., expected = .., high = .. }", v)
	}
	sp, err := spec.SpreadFrom(goValue(v))
	if err != nil {
		return nil, typeError(err.Error())
	}
	return sp, nil
}

// listElems returns the elements of a list or tuple; one number stands for
// a one-element list (e.g. the same calibration budget every round).
func listElems(v cty.Value) ([]cty.Value, error) {
	switch {
	case v.Type() == cty.Number:
		return []cty.Value{v}, nil
	case v.Type().IsListType() || v.Type().IsTupleType():
		var elems []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			elems = append(elems, e)
		}
		return elems, nil
	default:
		return nil, mismatch("a list of numbers", v)
	}
}

func toIntList(v cty.Value) (any, error) {
	elems, err := listElems(v)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(elems))
	for _, e := range elems {
		n, err := toInt(e)
		if err != nil {
			return nil, typeError("a list of whole numbers, got " + describe(e) + " in it")
		}
		out = append(out, n.(int))
	}
	return out, nil
}

func toNumberList(v cty.Value) (any, error) {
	elems, err := listElems(v)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, len(elems))
	for _, e := range elems {
		if e.IsNull() || e.Type() != cty.Number {
			return nil, mismatch("a list of numbers", e)
		}
		out = append(out, bigFloat(e))
	}
	return out, nil
}

// toStringList reads a list of strings; one string stands for a
// one-element list, as one number does for a list of numbers.
func toStringList(v cty.Value) (any, error) {
	if v.Type() == cty.String {
		return []string{v.AsString()}, nil
	}
	if !v.Type().IsListType() && !v.Type().IsTupleType() {
		return nil, mismatch("a list of strings", v)
	}
	out := []string{}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String {
			return nil, mismatch("a list of strings", e)
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

func toNumberMap(v cty.Value) (any, error) {
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, mismatch("a map of numbers, e.g. { H100 = 6.98 }", v)
	}
	out := map[string]float64{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if e.IsNull() || e.Type() != cty.Number {
			return nil, typeError(fmt.Sprintf("a map of numbers; %s is %s", k.AsString(), describe(e)))
		}
		out[k.AsString()] = bigFloat(e)
	}
	return out, nil
}

func toAnyMap(v cty.Value) (any, error) {
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, mismatch("an object, e.g. { key = value }", v)
	}
	return goValue(v).(map[string]any), nil
}

func toInt(v cty.Value) (any, error) {
	if v.IsNull() || v.Type() != cty.Number {
		return nil, mismatch("a whole number", v)
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return nil, mismatch("a whole number", v)
	}
	i, acc := bf.Int64()
	if acc != big.Exact || i > math.MaxInt32*1024 || i < -math.MaxInt32*1024 {
		return nil, mismatch("a whole number of reasonable size", v)
	}
	return int(i), nil
}
