package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// An edit is refused unless it names a described knob and sets a value of
// its type; without knobs, a value is a plain word.
func TestRefusedEdits(t *testing.T) {
	lo := 0.0
	knobs := []plugins.Knob{
		{Name: "lr", Default: "0.03", Values: []string{"0.01", "0.03"}},
		{Name: "rate", Default: "0.5", Type: "string"},
		{Name: "steps", Default: "10", Type: "integer", Min: &lo},
		{Name: "wd", Default: "0.1"}, // a number, by its default
	}
	for _, c := range []struct {
		knobs []plugins.Knob
		edits map[string]string
		want  string
	}{
		{knobs, map[string]string{"lr": "0.01", "rate": "cosine", "steps": "20", "wd": "1e-4"}, ""},
		{knobs, map[string]string{"rate": "1$(touch MARK)"}, `the edit rate = "1$(touch MARK)" is not a plain word`},
		{knobs, map[string]string{"lr": "0.02"}, `the edit lr = "0.02" is not one of 0.01, 0.03`},
		{knobs, map[string]string{"steps": "-1"}, `the edit steps = "-1" is not an integer ≥ 0`},
		{knobs, map[string]string{"wd": "adam"}, `the edit wd = "adam" is not a number`},
		{knobs, map[string]string{"momentum": "0.9"}, `the edit "momentum" names no knob of the trainer; its knobs are lr, rate, steps, wd`},
		{nil, map[string]string{"any.name": "ok_1"}, ""},
		{nil, map[string]string{"x": "a b"}, `the edit x = "a b" is not a plain word`},
	} {
		got := refusedEdits(c.knobs, c.edits)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.edits, got, c.want)
		}
	}
}
