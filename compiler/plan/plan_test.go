package plan

import (
	"encoding/json"
	"math"
	"testing"
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
