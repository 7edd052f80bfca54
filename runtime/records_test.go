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
