package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
	"github.com/assay-lang/assay/runtime/pairs"
)

// trainingFigures adds a run's critic-training figures to f: the updates
// its loops' continual critics made ("ct_updates", 0 for a run whose
// critic stayed frozen after its critic training) and the held-out Dir-3
// of the critic as the run left it ("ct_heldout").
func trainingFigures(dir, id string, v *plan.Variant, r *runtime.Result, f map[string]float64) error {
	if v.PhaseOf(plan.PhaseCriticTraining) == nil {
		return nil
	}
	f["ct_updates"] = 0
	if m := r.Totals.Measured; m != nil {
		for name, ct := range m.CriticTrainings {
			if strings.HasSuffix(name, ".continual") {
				f["ct_updates"] += float64(ct.Updates)
			}
		}
	}
	acc, err := heldOutDir3(dir, id, v)
	if err != nil {
		return err
	}
	f["ct_heldout"] = acc
	return nil
}

// heldOutDir3 is the 3-way accuracy on the held-out pairs of the run's
// critic_eval (those it benches: its filter's, its first Examples) of the offline critic as the run left it (the state of its
// last critic update, after every loop), by the majority of the critic's
// votes at its role's temperature, each pair judged with the same seeds in
// every arm of a seed. A loop's continual critic is measured after its
// last round, where the spec's critic_eval (before the loop) cannot.
func heldOutDir3(dir, id string, v *plan.Variant) (float64, error) {
	var ce *plan.CriticEval
	for _, ph := range v.Phases {
		if ph.CriticEval != nil && ph.CriticEval.Split == "holdout" {
			ce = ph.CriticEval
		}
	}
	if ce == nil || len(ce.Critics) == 0 {
		return 0, fmt.Errorf("run %s: no critic_eval of held-out pairs to measure its critic on", id)
	}
	var c *plan.Critic
	for _, x := range v.Critics {
		if x.Name == ce.Critics[0] {
			c = x
		}
	}
	var temp float64
	for _, ro := range v.Roles {
		if c != nil && ro.Name == c.Role {
			temp = ro.Temperature
		}
	}
	if c == nil || c.Labels != payload.Labels3 {
		return 0, fmt.Errorf("run %s: critic %s is not a 3-way critic", id, ce.Critics[0])
	}
	st, err := lastCriticState(filepath.Join(dir, id, "journal.db"))
	if err != nil {
		return 0, fmt.Errorf("run %s: %w", id, err)
	}
	fh, err := os.Open(ce.DataPath())
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	ps, err := pairs.ReadJSONL(fh)
	if err != nil {
		return 0, err
	}
	// The bench's pairs: its filter, its split, its first Examples.
	ps, _ = critic.KeepParents(ps, ce.MinImproving)
	right, n := 0, 0
	for i, p := range ps {
		if p.Split != ce.Split {
			continue
		}
		if n == ce.Examples {
			break
		}
		n++
		req := runtime.PairRequest(&p, payload.Labels3)
		count := map[string]int{}
		for k := 0; k < c.Votes; k++ {
			resp, err := model.CritiqueState(req, temp, v.Seed*1_000_000+int64(1000*i+k), st)
			if err != nil {
				return 0, err
			}
			count[critic.Direction(resp.Label)]++
		}
		if majority(count) == p.Label3 {
			right++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("%s holds no %s pair", ce.Data, ce.Split)
	}
	return float64(right) / float64(n), nil
}

// majority is the most frequent direction; directions tied for it are a
// tie.
func majority(count map[string]int) string {
	best, top, tied := critic.Tie, -1, false
	for _, l := range []string{critic.Improve, critic.Tie, critic.Lose} {
		switch {
		case count[l] > top:
			best, top, tied = l, count[l], false
		case count[l] == top:
			tied = true
		}
	}
	if tied {
		return critic.Tie
	}
	return best
}

// lastCriticState is the offline critic's state after the last critic
// update the journal holds that did not fail; nil (untrained) without one.
func lastCriticState(path string) (*model.CriticState, error) {
	j, err := journal.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	evs, err := j.Events(journal.KindPolicy)
	if err != nil {
		return nil, err
	}
	var state []byte
	for _, e := range evs {
		var rec struct {
			State  []byte `json:"state"`
			Failed string `json:"failed"`
		}
		if strings.HasPrefix(e.Key, "critic_training/") && !strings.HasSuffix(e.Key, "/reserve") && json.Unmarshal(e.Data, &rec) == nil && rec.Failed == "" {
			state = rec.State
		}
	}
	if state == nil {
		return nil, nil
	}
	return model.LoadCritic(state)
}
