package valuetype

import (
	"strings"
	"testing"
)

func f(x float64) *float64 { return &x }

// Each type admits its values and refuses the rest, saying what it wants;
// no type admits a shell payload.
func TestCheck(t *testing.T) {
	word := Type{Kind: String}
	for _, c := range []struct {
		t    Type
		v    string
		want string // "" when v fits
	}{
		{Type{Values: []string{"0.1", "0.3"}}, "0.3", ""},
		{Type{Values: []string{"0.1", "0.3"}}, "0.2", `"0.2" is not one of 0.1, 0.3`},
		{Type{Values: []string{"a b"}}, "a b", "is not a number, true, false or a plain word"},
		{Type{Kind: Integer, Values: []string{"1", "x"}}, "x", "an integer"},
		{Type{Kind: Number}, "3e-4", ""},
		{Type{Kind: Number}, "-.5", ""},
		{Type{Kind: Number}, "+1.", ""},
		{Type{Kind: Number}, "1e999", "a number"},
		{Type{Kind: Number}, "NaN", "a number"},
		{Type{Kind: Number}, "0x10", "a number"},
		{Type{Kind: Number}, "1_000", "a number"},
		{Type{Kind: Number}, " 1", "a number"},
		{Type{Kind: Number, Min: f(0), Max: f(1)}, "1", ""},
		{Type{Kind: Number, Min: f(0), Max: f(1)}, "1.5", "a number ≥ 0 and ≤ 1"},
		{Type{Kind: Integer}, "12", ""},
		{Type{Kind: Integer}, "1.0", "an integer"},
		{Type{Kind: Integer}, "99999999999999999999", "an integer"},
		{Type{Kind: Integer, Min: f(1)}, "0", "an integer ≥ 1"},
		{Type{Kind: Bool}, "true", ""},
		{Type{Kind: Bool}, "True", "true or false"},
		{word, "cosine_v2.1+x", ""},
		{word, "-rf", "a plain word"},
		{word, "", "a plain word"},
		{word, "1$(touch MARK)", `"1$(touch MARK)" is not a plain word (letters, digits and . _ + -, not starting with -): it holds "$"`},
		{word, "a b", `it holds " "`},
		{word, "a\nb", `it holds "\n"`},
		{word, "a'b", `it holds "'"`},
		{word, "a`b`", "it holds \"`\""},
		{word, "a;b", `it holds ";"`},
		{word, ">M", `it holds ">"`},
		{word, "a=b", `it holds "="`},
		{word, "é", `it holds "\xc3"`},
		{word, strings.Repeat("a", MaxBytes+1), "at most 256 bytes"},
		{Type{Kind: String, Pattern: "[a-z]+(/[a-z]+)*"}, "data/small", ""},
		{Type{Kind: String, Pattern: "[a-z]+(/[a-z]+)*"}, "data/Small", "a string matching"},
		{Type{Kind: String, Pattern: ".*"}, "ok,-x:1@/", ""},
		{Type{Kind: String, Pattern: ".*"}, "$(id)", `it holds "$"`},
		{Type{Pattern: ".*"}, "a b", `it holds " "`},
	} {
		err := c.t.Check(c.v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v.Check(%q) = %v, want nil", c.t, c.v, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v.Check(%q) = %v, want an error containing %q", c.t, c.v, err, c.want)
		}
	}
}

func TestProblem(t *testing.T) {
	for _, c := range []struct {
		t    Type
		want string
	}{
		{Type{Kind: Number, Min: f(0), Max: f(1)}, ""},
		{Type{Kind: String, Pattern: "[a-z]+"}, ""},
		{Type{Values: []string{"1", "adam", "true"}}, ""},
		{Type{Kind: "float"}, `type "float" is not one of number, integer, bool, string`},
		{Type{Kind: String, Min: f(0)}, "min and max bound"},
		{Type{Kind: Number, Min: f(2), Max: f(1)}, "min 2 is more than max 1"},
		{Type{Kind: Number, Pattern: "x"}, "pattern is the pattern of a type \"string\""},
		{Type{Kind: String, Pattern: "("}, "is not a regular expression"},
		{Type{Pattern: "a", Values: []string{"a"}}, "with values"},
		{Type{Values: []string{"$(x)"}}, "values[0]"},
		{Type{Kind: Integer, Values: []string{"1", "2.5"}}, "values[1]: \"2.5\" is not an integer"},
		{Type{Kind: Integer, Min: f(2), Values: []string{"1"}}, "values[0]"},
	} {
		got := c.t.Problem()
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v.Problem() = %q, want %q", c.t, got, c.want)
		}
	}
}

func TestInfer(t *testing.T) {
	for v, want := range map[string]string{"0.03": Number, "-1": Number, "1e-4": Number, "true": Bool, "adam": String, "Inf": String, "": String} {
		if got := Infer(v); got != want {
			t.Errorf("Infer(%q) = %s, want %s", v, got, want)
		}
	}
}

// FuzzCheck: whatever a type admits is at most MaxBytes of letters,
// digits and Marks, none of which any shell or language reads as syntax of
// a command, a substitution or a string.
func FuzzCheck(f *testing.F) {
	for _, v := range []string{"0.1", "adam", "1$(touch M)", "a b", "-1e5", "true", "x/y:z", "\x00", "é"} {
		for _, k := range []string{"", Number, Integer, Bool, String} {
			f.Add(k, ".*", v)
			f.Add(k, "", v)
		}
	}
	f.Fuzz(func(t *testing.T, kind, pattern, v string) {
		ty := Type{Kind: kind}
		if kind == String {
			ty.Pattern = pattern
		}
		if ty.Problem() != "" || ty.Check(v) != nil {
			return
		}
		if len(v) > MaxBytes {
			t.Fatalf("%+v admits %d bytes", ty, len(v))
		}
		if i := strings.IndexFunc(v, notMark); i >= 0 {
			t.Fatalf("%+v admits %q, which holds %q", ty, v, v[i:i+1])
		}
	})
}
