package formula

import (
	"strings"
	"testing"
)

// A plan's tree rebuilds the formula without parsing, and a malformed
// tree (a hand-edited plan) is refused rather than evaluated.
func TestFromTree(t *testing.T) {
	src := "clip(predicted_gain / scale, -c, c) + (x > 1 ? 2 : 3)"
	e := MustParse(src)
	e2, err := FromTree(src, e.Tree())
	if err != nil {
		t.Fatal(err)
	}
	env := Env{"predicted_gain": Num(3), "scale": Num(2), "c": Num(1), "x": Num(2)}
	v1, _ := e.Eval(env)
	v2, err := e2.Eval(env)
	if err != nil || v1 != v2 || v2.Num != 3 {
		t.Fatalf("rebuilt = %v, %v; parsed = %v", v2, err, v1)
	}
	bad := map[string]*Node{
		"unknown op":       {Op: "shl", End: 1},
		"wrong arity":      {Op: "add", Args: []*Node{{Op: "num", Num: 1, End: 1}}, End: 1},
		"unknown function": {Op: "call", Name: "system", End: 1},
		"function arity":   {Op: "call", Name: "clip", Args: []*Node{{Op: "num", End: 1}}, End: 1},
		"outside the text": {Op: "num", Start: 0, End: 99},
		"nil operand":      {Op: "neg", Args: []*Node{nil}, End: 1},
	}
	for name, n := range bad {
		if _, err := FromTree("x", n); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	deep := &Node{Op: "num", End: 1}
	for i := 0; i < 1000; i++ {
		deep = &Node{Op: "neg", Args: []*Node{deep}, End: 1}
	}
	if _, err := FromTree("x", deep); err == nil || !strings.Contains(err.Error(), "deeply") {
		t.Errorf("a tree 1000 deep: %v", err)
	}
}
