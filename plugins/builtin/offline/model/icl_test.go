package model

import (
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// TestInContextRecordsShiftProposals: records in the prompt that show an
// edit gaining make the untrained proposer likelier to propose it, and
// records that show it losing make it less likely.
func TestInContextRecordsShiftProposals(t *testing.T) {
	pol, _ := LoadPolicy(nil)
	share := func(records []payload.Record) float64 {
		req := proposeReq("t1", 1)
		req.Records = records
		acts := candidates(req)
		ps := pol.probs(acts, req.Task, 1)
		for i, a := range acts {
			if a.Knob == "width" && a.Value == "128" {
				return ps[i]
			}
		}
		t.Fatal("no width=128 candidate")
		return 0
	}
	rec := func(task string, gain float64) payload.Record {
		return payload.Record{Task: task, Proposal: plugins.Proposal{Edits: map[string]string{"width": "128"}}, Gain: gain}
	}
	none := share(nil)
	up := share([]payload.Record{rec("t1", 0.05), rec("t2", 0.02)})
	down := share([]payload.Record{rec("t1", -0.05), {Task: "t1", Proposal: plugins.Proposal{Edits: map[string]string{"width": "128"}}, Infeasible: true}})
	if !(up > none && none > down) {
		t.Errorf("share of width=128: %v with gaining records, %v with none, %v with losing ones", up, none, down)
	}
	// A record of another task moves it less than one of the same task.
	if other := share([]payload.Record{rec("t2", 0.05)}); !(other > none && other < share([]payload.Record{rec("t1", 0.05)})) {
		t.Errorf("another task's record: %v (none %v)", other, none)
	}
}
