package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// expandSweep turns the spec into its variants: one ("default") without a
// sweep, else one per grid point (or per zip index), each a deep copy with
// the axis values set through spec.SetPath.
func expandSweep(c *compilation) {
	warnSetRouted(c)
	s := c.spec
	sw := s.Sweep
	if sw == nil {
		c.variants = []*variant{{name: "default", spec: s, idx: buildIndex(s, nil)}}
		return
	}
	base := cloneSpec(s)
	base.Sweep = nil
	if len(sw.Axes) == 0 {
		c.add(diag.Errorf(CodeSweepShape, sw.Range, "sweep has no axis").
			WithDetail("add axis \"PATH\" { values = [...] }, or remove the sweep block"))
		return
	}
	if !sweepSize(c, sw) {
		return
	}
	// Check every axis path and value on a scratch copy first, so each bad
	// one is reported once, at its own range.
	ok := true
	labels := axisLabels(sw.Axes)
	warnRoutedShare(c, sw.Axes)
	for _, ax := range sw.Axes {
		if strings.HasPrefix(ax.Name, "sweep.") || ax.Name == "sweep" {
			c.add(diag.Errorf(CodeSweepPath, ax.NameRange, "a sweep cannot sweep itself (%q)", ax.Name))
			ok = false
			continue
		}
		if f, err := spec.PathField(base, ax.Name); err != nil {
			// A path through an absent single block (e.g. budget) is still
			// sweepable: SetPath creates the block. Ask SetPath, whose
			// error is then the precise one.
			if err2 := spec.SetPath(cloneSpec(base), ax.Name, probeLiteral(ax)); err2 != nil && !isValueError(err2) {
				c.add(diag.Errorf(CodeSweepPath, ax.NameRange, "sweep axis %q: %v", ax.Name, err2).
					WithDetail("an axis label is a path to a scalar field, e.g. \"critic.screen.votes\""))
				ok = false
				continue
			}
		} else if !spec.Sweepable(f.Type) {
			c.add(diag.Errorf(CodeSweepPath, ax.NameRange, "sweep axis %q is of type %s; only string, number, int and bool fields can be swept", ax.Name, f.Type))
			ok = false
			continue
		}
		if len(ax.Values) == 0 {
			c.add(diag.Errorf(CodeSweepShape, ax.Range, "sweep axis %q has no values", ax.Name).
				WithDetail("write values = [ ... ]"))
			ok = false
			continue
		}
		for _, v := range ax.Values {
			if err := spec.SetPath(cloneSpec(base), ax.Name, v); err != nil {
				c.add(diag.Errorf(CodeSweepValue, valueRange(v, ax), "sweep axis %q: %v", ax.Name, err))
				ok = false
			}
		}
	}
	if !ok {
		return
	}
	var points [][]int // each point: value index per axis
	switch sw.Mode.V {
	case "zip":
		n := len(sw.Axes[0].Values)
		for _, ax := range sw.Axes[1:] {
			if len(ax.Values) != n {
				c.add(diag.Errorf(CodeSweepShape, ax.Range, "zip sweep axis %q has %d values, but %q has %d", ax.Name, len(ax.Values), sw.Axes[0].Name, n).
					WithDetail("give every axis of a zip sweep the same number of values, or use mode = \"grid\""))
				return
			}
		}
		for i := 0; i < n; i++ {
			p := make([]int, len(sw.Axes))
			for j := range p {
				p[j] = i
			}
			points = append(points, p)
		}
	default: // grid
		points = [][]int{{}}
		for _, ax := range sw.Axes {
			var next [][]int
			for _, p := range points {
				for i := range ax.Values {
					q := append(append([]int(nil), p...), i)
					next = append(next, q)
				}
			}
			points = next
		}
	}
	for _, p := range points {
		vs := cloneSpec(base)
		v := &variant{overrides: map[string]any{}}
		var parts []string
		for j, ax := range sw.Axes {
			lit := ax.Values[p[j]]
			if err := spec.SetPath(vs, ax.Name, lit); err != nil {
				c.add(diag.Errorf(CodeSweepValue, valueRange(lit, ax), "sweep axis %q: %v", ax.Name, err))
				continue
			}
			v.overrides[ax.Name] = lit.Value()
			parts = append(parts, fmt.Sprintf("%s=%v", labels[j], lit.Value()))
		}
		v.name = strings.Join(parts, ",")
		v.spec = vs
		v.idx = buildIndex(vs, nil)
		c.variants = append(c.variants, v)
	}
}

// axisLabels names each axis in variant names by its last path segment,
// or by the whole path where two axes share a last segment.
func axisLabels(axes []*spec.Axis) []string {
	count := map[string]int{}
	last := make([]string, len(axes))
	for i, ax := range axes {
		seg := ax.Name[strings.LastIndex(ax.Name, ".")+1:]
		last[i] = seg
		count[seg]++
	}
	for i, ax := range axes {
		if count[last[i]] > 1 {
			last[i] = ax.Name
		}
	}
	return last
}

func valueRange(l spec.Literal, ax *spec.Axis) diag.Range {
	if l.Range.Valid() {
		return l.Range
	}
	return ax.Range
}

func probeLiteral(ax *spec.Axis) spec.Literal {
	if len(ax.Values) > 0 {
		return ax.Values[0]
	}
	return spec.Literal{}
}

// screensRL reports whether a loop of s whose critic's routing decides
// real runs screens with critic name: an RL loop, or an evolution loop
// that verifies routed ideas.
func screensRL(s *spec.Spec, name string) bool {
	for _, l := range s.Loops {
		if routesWith(l) && l.Screen.Name == name {
			return true
		}
	}
	return false
}

// routesWith reports whether a loop sends what its screen routes to real
// runs (when the critic routes at all): an RL loop with a screen, or an
// evolution loop with a screen and verify_routed.
func routesWith(l *spec.Loop) bool {
	if !l.Screen.Set {
		return false
	}
	return l.Kind.V == "rl" || (l.Kind.V == "evolution" && l.VerifyRouted.V)
}

// isValueError tells a bad value (reported per value) from a bad path.
func isValueError(err error) bool {
	m := err.Error()
	return strings.Contains(m, " takes ") || strings.Contains(m, "must be one of")
}

// warnRoutedShare warns when an axis changes what a critic routes while the
// routed share the estimate assumes stays fixed (routingWithoutShare):
// every variant would show the same real runs, and the user should sweep
// expected_routed alongside.
func warnRoutedShare(c *compilation, axes []*spec.Axis) {
	swept := func(path string) bool {
		return slices.ContainsFunc(axes, func(ax *spec.Axis) bool { return ax.Name == path })
	}
	for _, ax := range axes {
		if name, ok := routingWithoutShare(c.spec, ax.Name, swept); ok {
			c.add(diag.Warnf(CodeSweepRouted, ax.NameRange, "sweeping %s leaves critic %q's expected_routed fixed, so every variant estimates the same real runs", ax.Name, name).
				WithDetail("sweep \"critic.%s.expected_routed\" too (mode = \"zip\", one routed share per variant), or read the variants' real runs as equal by assumption", name))
		}
	}
}

// routingWithoutShare is the rule behind the routed-share warnings of
// --set and of sweeps: path changes what critic NAME routes (its votes or
// threshold), NAME screens a loop whose routing decides real runs
// (screensRL), and its expected_routed is not changed alongside
// (changed reports which paths are). Assay cannot know how routing
// responds, so the estimate keeps the routed share it had. It returns NAME.
func routingWithoutShare(s *spec.Spec, path string, changed func(path string) bool) (string, bool) {
	parts := strings.Split(path, ".")
	if len(parts) != 3 || parts[0] != "critic" || (parts[2] != "votes" && parts[2] != "threshold") {
		return "", false
	}
	if changed("critic."+parts[1]+".expected_routed") || !screensRL(s, parts[1]) {
		return "", false
	}
	return parts[1], true
}

// sweepSize refuses a sweep of more than MaxVariants variants before any
// value is checked on a copy of the spec: each variant is a whole spec
// compiled on its own, and ten thousand take minutes and gigabytes. A zip
// makes one variant per value, a grid the product of its axes' values.
func sweepSize(c *compilation, sw *spec.Sweep) bool {
	if sw.Mode.V == "zip" {
		for _, ax := range sw.Axes {
			if n := len(ax.Values); n > c.opts.MaxVariants {
				c.add(diag.Errorf(CodeTooLarge, ax.Range, "zip sweep axis %q has %d values; a sweep expands to at most %d variants", ax.Name, n, c.opts.MaxVariants).
					WithDetail("Sweep fewer values, or split the values over several specs that extend one base."))
				return false
			}
		}
		return true
	}
	total := 1.0 // in floating point: a product of value counts cannot overflow
	for _, ax := range sw.Axes {
		total *= float64(max(len(ax.Values), 1))
	}
	if total > float64(c.opts.MaxVariants) {
		c.add(diag.Errorf(CodeTooLarge, sw.Range, "the grid sweep's axes cross to %.0f variants; a sweep expands to at most %d", total, c.opts.MaxVariants).
			WithDetail("Sweep fewer values; mode = \"zip\" pairs the axes' values instead of crossing them (one variant per value); or split the values over several specs that extend one base."))
		return false
	}
	return true
}
