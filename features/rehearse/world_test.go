package rehearse

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/sim"
)

const goodWorld = `
environment "*" {
  gain  = normal(-0.4, 0.8)
  hours = uniform(1.2, 2.5)
}
environment "tiny" {
  infeasible = 0.05
  failed     = percent(1)
}
role "critic" {
  accuracy = 0.7
  unsure   = uniform(0.3, 0.5)
}
role "rwm" {
  noise = 0.8
}
`

func TestParseWorld(t *testing.T) {
	w, ds := ParseWorld("w.hcl", []byte(goodWorld))
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	if g := w.Envs["*"].Gain.Dist; g != (sim.Dist{Kind: "normal", A: -0.4, B: 0.8}) {
		t.Errorf("gain %v", g)
	}
	if f := w.Envs["tiny"].Failed.Dist; f != sim.Fixed(0.01) {
		t.Errorf("failed %v", f)
	}
	if u := w.Roles["critic"].Unsure; u.Dist != (sim.Dist{Kind: "uniform", A: 0.3, B: 0.5}) || u.Range.Start.Line != 12 {
		t.Errorf("unsure %+v", u)
	}
	v := &plan.Variant{Envs: []*plan.Environment{{Name: "tiny"}}, Roles: []*plan.Role{{Name: "critic"}, {Name: "rwm"}}}
	if ds := w.Check(v); ds.HasErrors() {
		t.Errorf("check: %v", ds.Err())
	}
	v.Roles = v.Roles[:1]
	ds = w.Check(v)
	if len(ds) != 1 || !strings.Contains(ds[0].Error(), `w.hcl:14:6: error [E_WORLD]: the plan has no role "rwm"`) {
		t.Errorf("check without rwm: %v", ds)
	}
}

func TestParseWorldRefuses(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`role "b" { build_failures = 1.5 }`, "w.hcl:1:29: error [E_WORLD]: build_failures: 1.5 leaves [0, 1]"},
		{`role "b" { unsure = normal(0.3, 0.1) }`, "w.hcl:1:21: error [E_WORLD]: unsure: a share cannot be normal"},
		{`environment "e" { hours = uniform(2, 1) }`, "w.hcl:1:27: error [E_WORLD]: hours: uniform [2, 1]"},
		{`environment "e" { gian = 1 }`, `w.hcl:1:19: error [E_WORLD]: Unsupported argument`},
		{`environment "e" { gain = "x" }`, "w.hcl:1:26: error [E_WORLD]: gain: a string is not a distribution"},
		{`environment "e" { gain = lognormal(1, 2) }`, "w.hcl:1:26: error [E_WORLD]: Call to unknown function"},
		{"environment \"e\" {}\nenvironment \"e\" {}", `w.hcl:2:13: error [E_WORLD]: environment "e" is set twice`},
		{`seed = 3`, "w.hcl:1:1: error [E_WORLD]: Unsupported argument"},
		{`role "b" {`, "w.hcl:1:10: error [E_WORLD]: Unclosed configuration block"},
		{`environment "e" { gain = normal(1e308, 1e308) }`, "w.hcl:1:26: error [E_WORLD]: gain: normal(1e+308, 1e+308): its draws are not all finite numbers"},
		{`environment "e" { gain = uniform(-1e308, 1e308) }`, "w.hcl:1:26: error [E_WORLD]: gain: uniform(-1e+308, 1e+308): its draws are not all finite numbers"},
		{`environment "e" { gain = 1e400 }`, "w.hcl:1:26: error [E_WORLD]: gain: +Inf: its draws are not all finite numbers"},
		{`environment "e" { hours = 1e308 }`, "w.hcl:1:27: error [E_WORLD]: hours: 1e+308 reaches 1e+308; a world file's figures"},
		{`role "r" { noise = normal(0, 1e7) }`, "w.hcl:1:20: error [E_WORLD]: noise: normal(0, 1e+07) reaches 4e+07"},
	} {
		_, ds := ParseWorld("w.hcl", []byte(tc.src))
		if !ds.HasErrors() || !strings.Contains(ds.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.src, ds, tc.want)
		}
	}
}

func FuzzParseWorld(f *testing.F) {
	f.Add([]byte(goodWorld))
	f.Add([]byte(`role "b" { build_failures = uniform(0, percent(50)) }`))
	f.Add([]byte(`environment "e" { gain = normal(1, -1) }`))
	f.Fuzz(func(t *testing.T, src []byte) {
		w, ds := ParseWorld("f.hcl", src)
		if !ds.HasErrors() && w == nil {
			t.Fatal("no world and no error")
		}
		if !ds.HasErrors() {
			// What is accepted draws finite figures within the bound.
			for _, e := range w.Envs {
				for _, st := range []*Setting{e.Gain, e.Hours, e.Infeasible, e.Failed} {
					if st != nil && !(max(-st.Dist.Low(), st.Dist.High()) <= maxWorldValue) {
						t.Fatalf("accepted %s", st.Dist)
					}
				}
			}
		}
		for _, d := range ds {
			if d.Code != codeWorld {
				t.Errorf("code %q", d.Code)
			}
		}
	})
}
