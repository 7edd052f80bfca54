package compiler

import (
	"testing"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// TestWarnRoutedShare runs each case as a sweep's axes and as --set
// settings of the same paths: the two warnings are one rule
// (routingWithoutShare), so they fire on the same cases.
func TestWarnRoutedShare(t *testing.T) {
	axis := func(name string) *spec.Axis { return &spec.Axis{Name: name} }
	cases := []struct {
		name string
		axes []*spec.Axis
		want int
	}{
		{"votes alone", []*spec.Axis{axis("critic.screen.votes")}, 1},
		{"votes and threshold", []*spec.Axis{axis("critic.screen.votes"), axis("critic.screen.threshold")}, 2},
		{"with expected_routed", []*spec.Axis{axis("critic.screen.threshold"), axis("critic.screen.expected_routed")}, 0},
		{"other critic's share", []*spec.Axis{axis("critic.a.votes"), axis("critic.b.expected_routed")}, 1},
		{"not a critic field", []*spec.Axis{axis("loop.policy.steps")}, 0},
		{"evolution screen", []*spec.Axis{axis("critic.evo.votes")}, 0},
	}
	screen := func(loop, kind, critic string) *spec.Loop {
		return &spec.Loop{Name: loop, Kind: spec.Val[string]{V: kind, Set: true}, Screen: spec.Ref{Kind: "critic", Name: critic, Set: true}}
	}
	s := &spec.Spec{Loops: []*spec.Loop{screen("p", "rl", "screen"), screen("q", "rl", "a"), screen("r", "rl", "b"), screen("e", "evolution", "evo")}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &compilation{spec: s}
			warnRoutedShare(c, tc.axes)
			n := 0
			for _, d := range c.diags {
				if d.Code == CodeSweepRouted && d.Severity == diag.Warning {
					n++
				}
			}
			if n != tc.want || len(c.diags) != tc.want {
				t.Fatalf("got %d W_SWEEP_ROUTED of %d diagnostics, want %d", n, len(c.diags), tc.want)
			}
			c = &compilation{spec: s, overrides: map[string]any{}}
			for _, ax := range tc.axes {
				c.opts.Set = append(c.opts.Set, Setting{Path: ax.Name})
				c.overrides[ax.Name] = 1
			}
			warnSetRouted(c)
			n = 0
			for _, d := range c.diags {
				if d.Code == CodeSetRouted && d.Severity == diag.Warning {
					n++
				}
			}
			if n != tc.want || len(c.diags) != tc.want {
				t.Fatalf("--set: got %d %s of %d diagnostics, want %d", n, CodeSetRouted, len(c.diags), tc.want)
			}
		})
	}
}
