package plan

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
)

// An unbounded count writes its high as null with the reason, and reads
// back the same; a bare number reads as an exact count.
func TestCountJSON(t *testing.T) {
	for _, c := range []Count{Exact(3), {Low: 1, Expected: 2, High: 5}, Unbounded(1, 2, "nothing stops loop x")} {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Count
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back != c {
			t.Errorf("%+v wrote %s, read back %+v", c, b, back)
		}
	}
	b, _ := json.Marshal(Unbounded(1, 2, "why"))
	if string(b) != `{"low":1,"expected":2,"high":null,"reason":"why"}` {
		t.Errorf("unbounded count = %s", b)
	}
	var old Count
	if err := json.Unmarshal([]byte("0.75"), &old); err != nil || old != Exact(0.75) {
		t.Errorf("a bare number reads as %+v (%v)", old, err)
	}
	if c := Unbounded(1, 2, "why").Add(Exact(1)); c.Bounded() || !math.IsInf(c.High, 1) || c.Reason != "why" {
		t.Errorf("unbounded + exact = %+v", c)
	}
	if c := Unbounded(1, 2, "why").Scale(0); !c.Bounded() || !c.IsZero() {
		t.Errorf("unbounded x 0 = %+v, want zero", c)
	}
	if c := Unbounded(1, 2, "why").CapHigh(10); !c.Bounded() || c.High != 10 {
		t.Errorf("unbounded capped at 10 = %+v", c)
	}
}

// A variant's hash is that of the plan as it applies to the variant: the
// variants of a sweep differ, a one-variant plan keeps its own hash, and
// source ranges still count for nothing.
func TestVariantHash(t *testing.T) {
	mk := func(names ...string) *Plan {
		p := &Plan{FormatVersion: FormatVersion, Name: "x"}
		for _, n := range names {
			p.Variants = append(p.Variants, &Variant{Name: n, Overrides: map[string]any{"critic.screen.votes": n},
				Budget: Budget{RealRuns: 4, Source: map[string]diag.Range{"real_runs": {Filename: "a.hcl"}}}})
		}
		p.ComputeHash()
		return p
	}
	one := mk("default")
	if got := one.VariantHash("default"); got != one.Hash {
		t.Errorf("one variant: %s, plan %s", got, one.Hash)
	}
	sw := mk("votes=4", "votes=8")
	h4, h8 := sw.VariantHash("votes=4"), sw.VariantHash("votes=8")
	if h4 == h8 || h4 == sw.Hash || h8 == sw.Hash || !strings.HasPrefix(h4, "sha256:") {
		t.Errorf("sweep: variants %s and %s, plan %s", h4, h8, sw.Hash)
	}
	if sw.VariantHash("nosuch") != "" {
		t.Error("a variant the plan lacks has a hash")
	}
	// The variant of a sweep hashes as the plan of that variant alone.
	alone := mk("votes=8")
	if alone.Hash != h8 {
		t.Errorf("votes=8 alone %s, in the sweep %s", alone.Hash, h8)
	}
	sw.Variants[1].Budget.Source["real_runs"] = diag.Range{Filename: "b.hcl", Start: diag.Pos{Line: 3}}
	if sw.VariantHash("votes=8") != h8 {
		t.Error("a source range changed the hash")
	}
	sw.Variants[1].Seed = 2
	if sw.VariantHash("votes=8") == h8 || sw.VariantHash("votes=4") != h4 {
		t.Error("the seed of one variant did not change its hash alone")
	}
}
