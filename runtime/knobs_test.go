package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// knobReads says, for each field name of fields, the functions of the Go
// files of dir (tests excluded) that select it (x.Clip), in file order.
func knobReads(t *testing.T, dir string, fields ...string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	fset := token.NewFileSet()
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains(fields, sel.Sel.Name) {
					out[sel.Sel.Name] = append(out[sel.Sel.Name], fn.Name.Name)
				}
				return true
			})
		}
	}
	return out
}

// The reward clip, the calibration's clip and the routing threshold each
// reach the runtime in one place, a function that applies the plan's
// field: newShaper hands the reward's clip to its formulas as c,
// calibratedGain clips a calibration round's gains, and the router hands
// the critic's threshold to its route formula. A second read is a second
// rule the compiler cannot see.
func TestKnobsTouchRuntimeOnce(t *testing.T) {
	got := knobReads(t, ".", "Clip", "Threshold")
	want := map[string][]string{"Clip": {"calibratedGain", "newShaper"}, "Threshold": {"route"}}
	for f, fns := range want {
		g := slices.Sorted(slices.Values(got[f]))
		if !slices.Equal(g, fns) {
			t.Errorf("the plan's %s is read in %v, want only in %v", f, g, fns)
		}
	}
}

// A planted second read of the clip is caught.
func TestKnobReadsCatchesASecondRead(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nfunc newShaper(r *R) { _ = r.Clip }\n\nfunc elsewhere(r *R) float64 { return r.Clip }\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := knobReads(t, dir, "Clip")["Clip"]; !slices.Equal(got, []string{"newShaper", "elsewhere"}) {
		t.Fatalf("reads = %v, want [newShaper elsewhere]", got)
	}
}

// A calibration round compares gains as the plan states: divided by the
// task's scale unless normalize is none, clipped only when clip is set.
func TestCalibratedGainFollowsThePlan(t *testing.T) {
	task := taskInfo{Scale: 2}
	for _, c := range []struct {
		cal  plan.Calibration
		gain float64
		want float64
	}{
		{plan.Calibration{Normalize: "scale", Clip: 6}, 20, 6},
		{plan.Calibration{Normalize: "scale", Clip: 6}, -4, -2},
		{plan.Calibration{Normalize: "scale"}, 20, 10},
		{plan.Calibration{Normalize: "none", Clip: 6}, 4, 4},
		{plan.Calibration{Normalize: "none", Clip: 3}, -4, -3},
	} {
		if got := calibratedGain(&c.cal, c.gain, task); got != c.want {
			t.Errorf("calibratedGain(%+v, %g) = %g, want %g", c.cal, c.gain, got, c.want)
		}
	}
}
