package estimate

import (
	"fmt"
	"testing"
)

// The critic-only step sweep (seed 002, figure 5 left): one variant per
// step count, each training on 256 candidates a step judged by 16 critic
// votes with no real run, and evaluating its policy against Base.
func TestAcceptanceCriticOnlySteps(t *testing.T) {
	p, r := loadSpec(t, "critic-only-steps")
	steps := []float64{20, 40, 80, 120, 160}
	if len(p.Variants) != len(steps) || len(r.Variants) != len(steps) {
		t.Fatalf("variants = %d in the plan, %d in the report; want %d", len(p.Variants), len(r.Variants), len(steps))
	}
	var critic float64
	for i, v := range r.Variants {
		if want := fmt.Sprintf("steps=%g", steps[i]); v.Name != want {
			t.Errorf("variant %d is %s, want %s", i, v.Name, want)
		}
		exact(t, v.Name+" loops.policy.steps", v.Loops["policy"].Steps, steps[i])
		exact(t, v.Name+" roles.critic.calls", v.Roles["critic"].Calls, steps[i]*256*16)
		// Training makes no real run: every one is the evaluation's.
		exact(t, v.Name+" totals.real_runs", v.Totals.RealRuns, 232)
		exact(t, v.Name+" updates.policy.gpu_hours", v.Loops["policy"].Updates.GPUHours, steps[i]*8*0.25)
		critic += steps[i] * 256 * 16
	}
	exact(t, "roles.critic.calls", r.Roles["critic"].Calls, critic)
	if critic != 1720320 {
		t.Errorf("critic calls over the sweep = %v, want 420 x 256 x 16 = 1,720,320", critic)
	}
}

// The seven screening settings of the critics paper's table 2: None
// (openevolve.hcl) and six critics, each at 30 verifications per task on
// the 29 scored tasks, the six judging 16 ideas x 16 votes per
// island-round and differing only in the critic's model and price; each
// critic answers in the paper's two tags, read by named groups.
func TestAcceptanceScreeningSettings(t *testing.T) {
	_, none := loadSpec(t, "openevolve")
	exact(t, "openevolve totals.real_runs", none.Totals.RealRuns, 870)
	if none.Roles["critic"] != nil {
		t.Errorf("the None setting has a critic: %+v", none.Roles["critic"])
	}
	prices := map[string][2]float64{
		"screen-gemini-pro":   {2.00, 12.00},
		"screen-gemini-flash": {0.30, 2.50},
		"screen-base-9b":      {0.05, 0.20},
		"screen-base-35b":     {0.15, 0.60},
		"screen-critic-9b":    {0.05, 0.20},
		"screen-critic-35b":   {0.15, 0.60},
	}
	models := map[string]bool{}
	var proposer float64
	for name, pr := range prices {
		p, r := loadSpec(t, name)
		v := p.Variants[0]
		exact(t, name+" totals.real_runs", r.Totals.RealRuns, 870)
		c := r.Roles["critic"]
		if c == nil {
			t.Fatalf("%s has no critic role in its estimate", name)
		}
		// One reask of an unread answer: the high figure doubles.
		if !near(c.Calls.Expected, 222720) || !near(c.Calls.High, 2*222720) {
			t.Errorf("%s roles.critic.calls = %+v, want 222,720 (445,440 with its one reask)", name, c.Calls)
		}
		if want := 222720 * (3000*pr[0] + 1200*pr[1]) / 1e6; !near(c.USD.Expected, want) {
			t.Errorf("%s critic dollars = %v, want %v", name, c.USD.Expected, want)
		}
		if proposer == 0 {
			proposer = r.Roles["proposer"].USD.Expected
		} else if !near(r.Roles["proposer"].USD.Expected, proposer) {
			t.Errorf("%s proposer dollars %v, want every setting's %v", name, r.Roles["proposer"].USD.Expected, proposer)
		}
		for _, role := range v.Roles {
			if role.Name != "critic" {
				continue
			}
			models[role.Model] = true
			if a := role.Answer; a == nil || a.Format != "pattern" || len(a.Verdicts) != 5 || role.Temperature != 0.7 {
				t.Errorf("%s critic: answer %+v at temperature %v, want the two-tag pattern with 5 verdicts at 0.7", name, a, role.Temperature)
			}
		}
		if l := v.Loops[0]; l.Islands != 3 || l.Rounds != 10 || l.Ideas != 16 || l.Verifications != 1 || v.Critics[0].Votes != 16 || v.Critics[0].Labels != "5way" {
			t.Errorf("%s loop %+v, critic %+v: want 3 x 10, 16 ideas, 1 verification, 16 5-way votes", name, l, v.Critics[0])
		}
	}
	if len(models) != len(prices) {
		t.Errorf("critic models %v: want one per setting", models)
	}
}
