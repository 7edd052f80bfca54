package stdlib

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Function is one stdlib function as specs call it. Front ends wrap Call in
// their own calling convention; the docs generator lists Name, Params, Result
// and Doc.
type Function struct {
	Name   string
	Doc    string
	Params []Param
	// Result is the result type: "number" or "list(number)".
	Result string
	// Call runs the function. Arguments arrive as float64 (number) or string,
	// in the order of Params; an error is the user's mistake, worded for them.
	Call func(args []any) (any, error)
}

// Param is a function parameter; Type is "number" or "string".
type Param struct {
	Name string
	Type string
}

// Functions is every stdlib function, in the order the docs list them.
var Functions = []Function{
	{Name: "hours", Doc: "hours in a duration string such as \"90m\", \"1h30m\", \"2d\" or \"45s\"",
		Params: []Param{{"duration", "string"}}, Result: "number", Call: str1(Hours)},
	{Name: "seconds", Doc: "seconds in a duration string such as \"4m\" or \"1h\"",
		Params: []Param{{"duration", "string"}}, Result: "number", Call: str1(Seconds)},
	{Name: "minutes", Doc: "hours in n minutes: minutes(90) = 1.5",
		Params: []Param{{"n", "number"}}, Result: "number", Call: num1(Minutes)},
	{Name: "days", Doc: "hours in n days: days(2) = 48",
		Params: []Param{{"n", "number"}}, Result: "number", Call: num1(Days)},
	{Name: "gpu_hours", Doc: "GPU-hours of gpus GPUs busy for hours hours: gpu_hours(8, 5.625) = 45",
		Params: []Param{{"gpus", "number"}, {"hours", "number"}}, Result: "number", Call: num2(GPUHours)},
	{Name: "per_million", Doc: "dollars per million tokens from a price of usd for tokens tokens: per_million(0.002, 1000) = 2",
		Params: []Param{{"usd", "number"}, {"tokens", "number"}}, Result: "number", Call: num2e(PerMillion)},
	{Name: "percent", Doc: "a percentage as a fraction: percent(36.3) = 0.363",
		Params: []Param{{"p", "number"}}, Result: "number", Call: num1(Percent)},
	{Name: "spread", Doc: "total split into parts whole numbers that differ by at most one and sum to total: spread(100, 3) = [34, 33, 33]",
		Params: []Param{{"total", "number"}, {"parts", "number"}}, Result: "list(number)", Call: spreadCall},
}

// FunctionNamed returns the stdlib function called name.
func FunctionNamed(name string) (Function, bool) {
	for _, f := range Functions {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// Hours returns the hours in a duration string.
func Hours(d string) (float64, error) {
	s, err := Seconds(d)
	return s / 3600, err
}

// durationUnits are the suffixes a duration string may use, in seconds.
var durationUnits = map[string]float64{"d": 86400, "h": 3600, "m": 60, "s": 1}

// Seconds returns the seconds in a duration string: one or more numbers each
// followed by a unit d, h, m or s, e.g. "1h30m", "5.625h", "90s".
func Seconds(d string) (float64, error) {
	s := strings.TrimSpace(d)
	if s == "" {
		return 0, fmt.Errorf("empty duration; write a number and a unit, e.g. \"90m\" or \"1h30m\"")
	}
	total := 0.0
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("bad duration %q: expected a number at %q; write e.g. \"90m\" or \"1h30m\"", d, s)
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("bad duration %q: %q is not a number", d, s[:i])
		}
		if i == len(s) {
			return 0, fmt.Errorf("bad duration %q: %q has no unit; add d, h, m or s", d, s[:i])
		}
		unit, ok := durationUnits[s[i:i+1]]
		if !ok {
			return 0, fmt.Errorf("bad duration %q: unknown unit %q; use d, h, m or s", d, s[i:i+1])
		}
		total += n * unit
		s = s[i+1:]
	}
	return total, nil
}

// Minutes returns the hours in n minutes.
func Minutes(n float64) float64 { return n / 60 }

// Days returns the hours in n days.
func Days(n float64) float64 { return n * 24 }

// GPUHours returns the GPU-hours of gpus GPUs busy for hours hours.
func GPUHours(gpus, hours float64) float64 { return gpus * hours }

// PerMillion converts a price of usd for tokens tokens to dollars per million
// tokens, the unit of a role's price block.
func PerMillion(usd, tokens float64) (float64, error) {
	if tokens <= 0 {
		return 0, fmt.Errorf("per_million needs a positive token count, got %v", tokens)
	}
	return usd / tokens * 1e6, nil
}

// Percent returns p percent as a fraction.
func Percent(p float64) float64 { return p / 100 }

// MaxSpreadParts bounds Spread's result, so a typo cannot allocate gigabytes.
const MaxSpreadParts = 10000

// Spread splits total into parts whole numbers that sum to total, by largest
// remainder with ties going to the earlier parts.
func Spread(total, parts int) ([]int, error) {
	if parts <= 0 {
		return nil, fmt.Errorf("spread needs at least one part, got %d", parts)
	}
	if parts > MaxSpreadParts {
		return nil, fmt.Errorf("spread makes at most %d parts, got %d", MaxSpreadParts, parts)
	}
	if total < 0 {
		return nil, fmt.Errorf("spread needs a total of 0 or more, got %d", total)
	}
	out := make([]int, parts)
	for i := range out {
		out[i] = total / parts
		if i < total%parts {
			out[i]++
		}
	}
	return out, nil
}

func str1(f func(string) (float64, error)) func([]any) (any, error) {
	return func(a []any) (any, error) { return f(a[0].(string)) }
}

func num1(f func(float64) float64) func([]any) (any, error) {
	return func(a []any) (any, error) { return f(a[0].(float64)), nil }
}

func num2(f func(float64, float64) float64) func([]any) (any, error) {
	return func(a []any) (any, error) { return f(a[0].(float64), a[1].(float64)), nil }
}

func num2e(f func(float64, float64) (float64, error)) func([]any) (any, error) {
	return func(a []any) (any, error) { return f(a[0].(float64), a[1].(float64)) }
}

func spreadCall(a []any) (any, error) {
	total, parts := a[0].(float64), a[1].(float64)
	if total != math.Trunc(total) || parts != math.Trunc(parts) {
		return nil, fmt.Errorf("spread takes whole numbers, got %v and %v", total, parts)
	}
	// Bound before converting: float64 to int is undefined past int's range.
	if math.Abs(total) > 1e15 || parts > MaxSpreadParts || parts < -1e15 {
		return nil, fmt.Errorf("spread(%v, %v) is out of range: at most %d parts and a total below 1e15", total, parts, MaxSpreadParts)
	}
	l, err := Spread(int(total), int(parts))
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(l))
	for i, x := range l {
		out[i] = float64(x)
	}
	return out, nil
}
