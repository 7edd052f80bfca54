package compiler

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/load"
)

// TestPlanGolden compiles every spec in specs/ (and specs/laptop/, the
// laptop-scale ablations, as laptop-NAME) and compares its plan JSON with
// testdata/plans/NAME.json; a spec that does not compile is compared by its
// diagnostics instead (NAME.diags), so a regression either way shows.
func TestPlanGolden(t *testing.T) {
	files, err := filepath.Glob("../specs/*.hcl")
	if err != nil || len(files) == 0 {
		t.Skip("no specs/ directory")
	}
	laptop, _ := filepath.Glob("../specs/laptop/*.hcl")
	for _, file := range append(files, laptop...) {
		name := strings.TrimSuffix(filepath.Base(file), ".hcl")
		if filepath.Base(filepath.Dir(file)) == "laptop" {
			name = "laptop-" + name
		}
		t.Run(name, func(t *testing.T) {
			// Through lang/load, so a spec with extends is compared merged.
			s, _, ds := load.Load(file, load.Options{})
			if ds.HasErrors() {
				t.Fatalf("does not load:\n%s", ds.Format(0))
			}
			p, cds := Compile(s, Options{})
			os.Remove(filepath.Join("testdata/plans", name+stale(p == nil)))
			if p == nil {
				golden(t, filepath.Join("testdata/plans", name+".diags"), []byte(cds.Format(100)))
				return
			}
			checkBodies(t, p)
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetIndent("", "  ")
			if err := enc.Encode(p); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata/plans", name+".json"), b.Bytes())
		})
	}
}

// stale names the golden file of the other outcome, removed on -update so
// the directory holds one file per spec.
func stale(failed bool) string {
	if !*update {
		return ".none"
	}
	if failed {
		return ".json"
	}
	return ".diags"
}

// The hash depends on meaning only: compiling twice gives the same hash,
// and so does a copy with comments and layout changed.
func TestDeterministicHash(t *testing.T) {
	src := readBase(t)
	p1, ds := compileSource(t, "base.hcl", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p2, _ := compileSource(t, "base.hcl", []byte(src))
	if p1.Hash == "" || p1.Hash != p2.Hash {
		t.Fatalf("hashes differ for the same spec: %s vs %s", p1.Hash, p2.Hash)
	}
	a, _ := json.Marshal(p1)
	b, _ := json.Marshal(p2)
	if !bytes.Equal(a, b) {
		t.Fatal("plan JSON differs between two compilations of the same spec")
	}
	reformatted := "# a new comment at the top\n\n\n" +
		strings.NewReplacer(
			"clip       = 6", "clip = 6 # the paper's c",
			"  votes           = 15\n", "\n\n  votes = 15\n",
			"\n}\n", "\n}\n\n# between blocks\n",
		).Replace(src)
	p3, ds := compileSource(t, "moved/elsewhere.hcl", []byte(reformatted))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if p3.Hash != p1.Hash {
		t.Fatalf("reformatting changed the hash: %s vs %s", p3.Hash, p1.Hash)
	}
	changed, _ := mutate(t, src, "clip       = 6", "clip       = 5")
	p4, _ := compileSource(t, "base.hcl", []byte(changed))
	if p4.Hash == p1.Hash {
		t.Fatal("changing clip left the hash unchanged")
	}
}

func BenchmarkCompileLM2LM(b *testing.B) {
	s, ds := hcl.LoadFile("../specs/lm2lm.hcl", hcl.Options{})
	if ds.HasErrors() {
		b.Fatal(ds)
	}
	b.ReportAllocs()
	for b.Loop() {
		Compile(s, Options{})
	}
}

// checkBodies checks that every phase of p carries the one body of its
// kind, and every continual critic's schedule what its counts say.
func checkBodies(t *testing.T, p *plan.Plan) {
	t.Helper()
	for _, v := range p.Variants {
		for _, ph := range v.Phases {
			if !ph.HasBody() {
				t.Errorf("variant %s: phase %s (%s) has %d bodies, want the one of its kind", v.Name, ph.Name, ph.Kind, ph.Bodies())
			}
			if ph.Evolution == nil || ph.Evolution.Continual == nil {
				continue
			}
			cc := ph.Evolution.Continual
			n := map[string]float64{}
			for _, u := range cc.Updates {
				n[u.Kind]++
			}
			for kind, u := range map[string]*plan.CriticUpdate{plan.UpdateSDFT: cc.Training.SFT, plan.UpdateGRPO: cc.Training.GRPO} {
				if u != nil && u.Updates.High != n[kind] || u == nil && n[kind] > 0 {
					t.Errorf("variant %s: phase %s schedules %g %s updates, and counts %+v", v.Name, ph.Name, n[kind], kind, u)
				}
			}
		}
	}
}
