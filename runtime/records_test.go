package runtime

import (
	"slices"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// eachInContext visits the context's records of one task (env and name
// both), in order, and none of the state pool's that are not in context.
func TestEachInContext(t *testing.T) {
	s := &recordStore{poolBy: map[string][]record{}}
	rec := func(env, task, id string) record {
		return record{Env: env, Task: task, Proposal: plugins.Proposal{ID: id}}
	}
	s.add(true, rec("a", "t", "1"), rec("b", "t", "2"), rec("a", "u", "3"), rec("a", "t", "4"))
	s.add(false, rec("a", "t", "5"))
	var ids []string
	s.eachInContext(&taskInfo{Env: "a", Name: "t"}, func(r *record) { ids = append(ids, r.Proposal.ID) })
	if !slices.Equal(ids, []string{"1", "4"}) {
		t.Errorf("visited %v, want [1 4]", ids)
	}
	if n := s.count(); n != 4 {
		t.Errorf("count %d, want 4", n)
	}
}

// history is a task's last historyLen records of the state pool, newest
// first; asked again it is the same until the task gets a record, and a
// record of another task leaves it as it is.
func TestHistory(t *testing.T) {
	s := &recordStore{poolBy: map[string][]record{}}
	ids := func(rs []record) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Proposal.ID)
		}
		return out
	}
	task := &taskInfo{Env: "a", Name: "t"}
	if h := s.history(task); h != nil {
		t.Fatalf("history of a task with no records: %v", ids(h))
	}
	for i := range historyLen + 2 {
		s.add(false, record{Env: "a", Task: "t", Proposal: plugins.Proposal{ID: string(rune('A' + i))}})
	}
	want := []string{"J", "I", "H", "G", "F", "E", "D", "C"}
	first := s.history(task)
	if got := ids(first); !slices.Equal(got, want) {
		t.Fatalf("history %v, want %v", got, want)
	}
	if again := s.history(task); &again[0] != &first[0] {
		t.Error("history was made again with no new record")
	}
	if cap(first) != len(first) {
		t.Errorf("a shared history has room to append into (cap %d, len %d)", cap(first), len(first))
	}
	s.add(true, record{Env: "b", Task: "t", Proposal: plugins.Proposal{ID: "other"}})
	if got := ids(s.history(task)); !slices.Equal(got, want) {
		t.Errorf("after another task's record: %v, want %v", got, want)
	}
	s.add(true, record{Env: "a", Task: "t", Proposal: plugins.Proposal{ID: "K"}})
	if got := ids(s.history(task)); !slices.Equal(got, append([]string{"K"}, want[:historyLen-1]...)) {
		t.Errorf("after the task's new record: %v", got)
	}
	if got := ids(first); !slices.Equal(got, want) {
		t.Errorf("a history handed out changed to %v", got)
	}
}
