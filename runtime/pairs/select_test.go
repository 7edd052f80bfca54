package pairs

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func mk(task, l3, l5 string, n int) Pair {
	return Pair{Run: "r", RunKey: fmt.Sprintf("%s/%s/%d", task, l3, n), Env: "e", Task: task, Label3: l3, Label5: l5, Split: "train"}
}

func splits(ps []Pair) map[string]string {
	out := map[string]string{}
	for _, p := range ps {
		out[p.Task] = p.Split
	}
	return out
}

func TestSplit(t *testing.T) {
	var ps []Pair
	for _, task := range []string{"a", "b", "c", "d"} {
		ps = append(ps, mk(task, "improve", "", 0), mk(task, "lose", "", 1))
	}
	if err := Split(ps, []string{"b", "e/c"}, 0, 1); err != nil {
		t.Fatal(err)
	}
	if got := splits(ps); got["a"] != "train" || got["b"] != "holdout" || got["c"] != "holdout" || got["d"] != "train" {
		t.Errorf("named holdout: %v", got)
	}
	// Half of 4 tasks is 2: b is named, one more is drawn from a, c, d.
	if err := Split(ps, []string{"b"}, 0.5, 7); err != nil {
		t.Fatal(err)
	}
	held := 0
	for task, s := range splits(ps) {
		if s == "holdout" {
			held++
		} else if task == "b" {
			t.Error("the named task b is not held out")
		}
	}
	if held != 2 {
		t.Errorf("fraction 0.5 of 4 tasks held out %d", held)
	}
	// A share near 1 still leaves a task to train on.
	if err := Split(ps, nil, 0.99, 7); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(fmt.Sprint(splits(ps)), "train"); n != 1 {
		t.Errorf("fraction 0.99 left %d train tasks, want 1", n)
	}
	if err := Split(ps, []string{"zz"}, 0, 1); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("an unknown holdout task: %v", err)
	}
	for _, f := range []float64{-0.1, 1, 2} {
		if err := Split(ps, nil, f, 1); err == nil {
			t.Errorf("fraction %g was accepted", f)
		}
	}
}

func TestBalance(t *testing.T) {
	var ps []Pair
	for i := range 4 {
		ps = append(ps, mk("a", "improve", "SmallWin", i))
	}
	ps = append(ps, mk("a", "tie", "Tie", 0))
	for i := range 3 {
		ps = append(ps, mk("a", "lose", "", i))
	}
	got, short, err := Balance(ps, 2, "3way", 5)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range got {
		count[p.Label3]++
	}
	if count["improve"] != 2 || count["tie"] != 1 || count["lose"] != 2 {
		t.Errorf("balanced counts %v, want improve 2, tie 1, lose 2", count)
	}
	if len(short) != 1 || !strings.Contains(short[0], "train tie: 1 pairs, fewer than 2") {
		t.Errorf("short classes %v", short)
	}
	// The same seed keeps the same pairs whatever the input order.
	rev := slices.Clone(ps)
	slices.Reverse(rev)
	again, _, _ := Balance(rev, 2, "3way", 5)
	keys := func(ps []Pair) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.RunKey)
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(keys(got), keys(again)) {
		t.Errorf("balance depends on input order: %v vs %v", keys(got), keys(again))
	}
	// By the 5-way label, pairs without one are left out.
	got5, _, err := Balance(ps, 3, "5way", 5)
	if err != nil || len(got5) != 4 {
		t.Errorf("5way balance kept %d pairs (%v), want 3 SmallWin + 1 Tie", len(got5), err)
	}
	if _, _, err := Balance(ps, 0, "3way", 5); err == nil {
		t.Error("balance 0 was accepted")
	}
	if _, _, err := Balance(ps, 2, "4way", 5); err == nil {
		t.Error("an unknown label space was accepted")
	}
}

func TestReadJSONLRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"label3":"better"}`, `label3 "better"`},
		{`{"label3":"improve","label5":"Huge"}`, `label5 "Huge"`},
		{`{"label3":`, "line 1"},
		{"\n\n" + `{"label3":"tie"}` + "\n" + strings.Repeat("x", MaxLine+1), "line 4: longer than"},
	} {
		if _, err := ReadJSONL(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadJSONL(%.40q) = %v, want an error with %q", c.in, err, c.want)
		}
	}
	ps, err := ReadJSONL(strings.NewReader("\n" + `{"label3":"tie"}` + "\n\n"))
	if err != nil || len(ps) != 1 {
		t.Errorf("blank lines: %v, %v", ps, err)
	}
}

// FuzzReadJSONL checks that no input makes ReadJSONL panic, and that what
// it reads writes back and reads the same.
func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"label3":"improve","label5":"BigWin","parent":{"commit":"","metric":2},"child":{"metric":1.5}}`)
	f.Add(`{"label3":"tie"}` + "\n\n" + `{"label3":"lose","relative_improvement":-0.5}`)
	f.Add(`{"label3":`)
	f.Add("\r\n \t")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ReadJSONL(strings.NewReader(in))
		if err != nil {
			return
		}
		var b strings.Builder
		if err := WriteJSONL(&b, ps); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSONL(strings.NewReader(b.String()))
		if err != nil || len(back) != len(ps) {
			t.Fatalf("round trip: %d pairs, then %d, %v", len(ps), len(back), err)
		}
	})
}
