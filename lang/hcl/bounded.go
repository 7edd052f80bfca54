package hcl

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// maxResultBytes bounds the string one call of replace or join may build.
// These functions allocate their whole result at once, from inputs that can
// be small (replace(s, "a", s) squares s), so the memory ceiling of a load
// would see only a process already killed for lack of memory. No spec needs
// a string near this size.
const maxResultBytes = 16 << 20

// maxFormatWidth bounds the width and precision in a format string:
// format("%-999999999s", x) pads one byte at a time.
const maxFormatWidth = 10_000

// bounded returns f, checking its known arguments with check before the
// call.
func bounded(f function.Function, check func(args []cty.Value) error) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type:        func(args []cty.Value) (cty.Type, error) { return f.ReturnTypeForValues(args) },
		Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
			if err := check(args); err != nil {
				return cty.UnknownVal(ret), err
			}
			return f.Call(args)
		},
	})
}

func knownString(v cty.Value) (string, bool) {
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
		return "", false
	}
	s, _ := v.Unmark()
	return s.AsString(), true
}

func tooLong(fn string, n int64) error {
	return fmt.Errorf("%s would build a string of %d bytes; a spec's strings are limited to %d bytes", fn, n, maxResultBytes)
}

// checkReplace computes the length of replace(s, sub, rep): every match of sub
// grows s by len(rep)-len(sub); an empty sub matches between every rune.
func checkReplace(args []cty.Value) error {
	s, ok1 := knownString(args[0])
	sub, ok2 := knownString(args[1])
	rep, ok3 := knownString(args[2])
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	var n int64
	if sub == "" {
		n = int64(utf8.RuneCountInString(s)) + 1
	} else {
		n = int64(strings.Count(s, sub))
	}
	if size := int64(len(s)) + n*(int64(len(rep))-int64(len(sub))); size > maxResultBytes {
		return tooLong("replace", size)
	}
	return nil
}

// checkJoin adds up the separators and the known elements of join's lists.
func checkJoin(args []cty.Value) error {
	sep, ok := knownString(args[0])
	if !ok {
		return nil
	}
	var size, count int64
	for _, l := range args[1:] {
		if !l.IsKnown() || l.IsNull() || !l.CanIterateElements() {
			continue
		}
		for it := l.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if s, ok := knownString(e); ok {
				size += int64(len(s))
			}
			count++
		}
	}
	if count > 1 {
		size += (count - 1) * int64(len(sep))
	}
	if size > maxResultBytes {
		return tooLong("join", size)
	}
	return nil
}

// checkFormat refuses widths and precisions beyond maxFormatWidth in
// format's and formatlist's format string.
func checkFormat(args []cty.Value) error {
	f, ok := knownString(args[0])
	if !ok {
		return nil
	}
	// Every number between a % and its verb is a width, a precision or an
	// argument index; none has a use beyond maxFormatWidth.
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		for i++; i < len(f) && strings.IndexByte("-+ #0123456789.[]*", f[i]) >= 0; {
			n := 0
			for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
				if n = n*10 + int(f[i]-'0'); n > maxFormatWidth {
					return fmt.Errorf("format widths and precisions are at most %d", maxFormatWidth)
				}
			}
			if i < len(f) && (f[i] < '0' || f[i] > '9') && strings.IndexByte("-+ #.[]*", f[i]) >= 0 {
				i++
			}
		}
	}
	return nil
}
