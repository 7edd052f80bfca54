package estimate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
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

// The data-generation comparison of seed 000: LM2LM's data are its 200
// real runs (100 seed records and 100 calibration runs) and the calls
// that made and scored proposals, without its policy updates; the
// in-context arm's are its K records, each at a seed record's cost, so K
// = 300 costs half as much again as K = 200 (the paper: $39.5k and
// $60.0k, 510 hours for K = 300).
func TestAcceptanceICLDataCost(t *testing.T) {
	p, r := loadSpec(t, "lm2lm-eval")
	if len(r.DataCost) != 2 || r.DataCost[0].Arm != "policy" || r.DataCost[1].Arm != "icl" {
		t.Fatalf("data costs %+v, want the policy's and the in-context arm's", r.DataCost)
	}
	pol, icl := r.DataCost[0], r.DataCost[1]
	exact(t, "policy records", pol.Records, 200)
	exact(t, "icl records", icl.Records, 200)
	var seed, before Phase
	for _, ph := range r.Phases {
		if ph.Kind == "evaluation" {
			break
		}
		before.USD = before.USD.Add(ph.USD)
		if ph.Kind == "seed_records" {
			seed = *ph
		}
	}
	updates := r.Loops["policy"].Updates.USD
	if !near(pol.USD.Expected, before.USD.Expected-updates.Expected) || !near(updates.Expected, 16000) {
		t.Errorf("policy data $%v, want the phases before the evaluation ($%v) less the updates ($%v)", pol.USD.Expected, before.USD.Expected, updates.Expected)
	}
	// 12 GPU-hours a run on B200 at $14; a record also pays its proposer
	// and builder calls.
	exact(t, "icl gpu_hours", icl.GPUHours, 200*12)
	if !near(icl.USD.Expected, 2*seed.USD.Expected) || icl.USD.Expected <= 200*12*14 {
		t.Errorf("icl data $%v, want twice the 100 seed records' $%v, over the GPUs' $33,600", icl.USD.Expected, seed.USD.Expected)
	}
	exact(t, "icl run_hours", icl.RunHours, 200*1.5)
	exact(t, "policy run_hours", pol.RunHours, 200*1.5)
	// K = 300: half as much again.
	for i, a := range p.Variants[0].PhaseOf(plan.PhaseEvaluation).Evaluation.Arms {
		if a.Name == "icl" {
			p.Variants[0].PhaseOf(plan.PhaseEvaluation).Evaluation.Arms[i].Records = 300
		}
	}
	k300 := Estimate(p).DataCost
	if len(k300) != 2 || !near(k300[1].USD.Expected, 1.5*icl.USD.Expected) || !near(k300[1].RunHours.Expected, 450) || !near(k300[0].USD.Expected, pol.USD.Expected) {
		t.Errorf("K = 300 data costs %+v, want 1.5 x K = 200's $%v and 450 run hours, the policy's unchanged", k300[1], icl.USD.Expected)
	}
	// Without an in-context arm there is nothing to compare.
	if _, r := loadSpec(t, "lm2lm"); r.DataCost != nil {
		t.Errorf("lm2lm.hcl has no evaluation, yet data costs %+v", r.DataCost)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil || !strings.Contains(b.String(), "Data generation") {
		t.Errorf("the table has no data-generation section (%v):\n%s", err, b.String())
	}
}
