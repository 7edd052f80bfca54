package spec

import (
	"encoding/json"
	"testing"
)

func TestRefJSON(t *testing.T) {
	cases := []struct {
		in      string
		want    Ref
		wantErr bool
	}{
		{`"role.rwm"`, Ref{Kind: "role", Name: "rwm", Set: true}, false},
		{`null`, Ref{}, false},
		{`"role"`, Ref{}, true},
		{`"role."`, Ref{}, true},
		{`".rwm"`, Ref{}, true},
		{`"a.b.c"`, Ref{}, true},
		{`3`, Ref{}, true},
	}
	for _, c := range cases {
		var r Ref
		err := json.Unmarshal([]byte(c.in), &r)
		if (err != nil) != c.wantErr {
			t.Errorf("Unmarshal(%s) error = %v, wantErr %v", c.in, err, c.wantErr)
			continue
		}
		if !c.wantErr && r != c.want {
			t.Errorf("Unmarshal(%s) = %+v, want %+v", c.in, r, c.want)
		}
	}
	// Round trip through MarshalJSON.
	b, _ := json.Marshal(Ref{Kind: "critic", Name: "screen", Set: true})
	var r Ref
	if err := json.Unmarshal(b, &r); err != nil || r.String() != "critic.screen" {
		t.Fatalf("round trip = %v, %v", r, err)
	}
}
