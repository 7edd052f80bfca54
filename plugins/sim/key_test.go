package sim

import (
	"fmt"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// A proposal's key is its edits sorted by knob, however many.
func TestKey(t *testing.T) {
	many := map[string]string{}
	for i := range 10 {
		many[fmt.Sprintf("k%d", 9-i)] = fmt.Sprint(i)
	}
	for _, c := range []struct {
		p    plugins.Proposal
		want string
	}{
		{plugins.Proposal{ID: "base"}, ""},
		{plugins.Proposal{ID: "p", Text: "t"}, "text:p\x00t\x00"},
		{plugins.Proposal{Edits: map[string]string{"b": "2", "a": "1"}}, "a=1;b=2;"},
		{plugins.Proposal{Edits: many}, "k0=9;k1=8;k2=7;k3=6;k4=5;k5=4;k6=3;k7=2;k8=1;k9=0;"},
	} {
		if got := key(c.p); got != c.want {
			t.Errorf("key(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}
