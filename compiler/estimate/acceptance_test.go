package estimate

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
)

// loadSpec loads, compiles and estimates one of the example specs. It loads
// through lang/load, as assay does, so a spec with extends is merged.
func loadSpec(t *testing.T, name string) (*plan.Plan, *Report) {
	t.Helper()
	s, _, ds := load.Load("../../specs/"+name+".hcl", load.Options{})
	if ds.HasErrors() {
		t.Fatalf("specs/%s.hcl does not load:\n%s", name, ds.Format(0))
	}
	p, cds := compiler.Compile(s, compiler.Options{})
	if cds.HasErrors() {
		t.Fatalf("specs/%s.hcl does not compile:\n%s", name, cds.Format(0))
	}
	return p, Estimate(p)
}

func exact(t *testing.T, what string, got plan.Count, want float64) {
	t.Helper()
	if !near(got.Low, want) || !near(got.Expected, want) || !near(got.High, want) {
		t.Errorf("%s = %+v, want exactly %v", what, got, want)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func tasks(p *plan.Plan, split string) int {
	n := 0
	for _, e := range p.Variants[0].Envs {
		for _, t := range e.Tasks {
			if t.Split == split {
				n++
			}
		}
	}
	return n
}

func phase(p *plan.Plan, kind string) []*plan.Phase {
	var out []*plan.Phase
	for _, ph := range p.Variants[0].Phases {
		if ph.Kind == kind {
			out = append(out, ph)
		}
	}
	return out
}

func TestAcceptanceLM2LM(t *testing.T) {
	p, r := loadSpec(t, "lm2lm")
	v := p.Variants[0]
	if len(v.Envs) != 8 {
		t.Errorf("environments = %d, want 8", len(v.Envs))
	}
	if n := tasks(p, "train"); n != 40 {
		t.Errorf("train tasks = %d, want 40", n)
	}
	if n := tasks(p, "holdout"); n != 10 {
		t.Errorf("holdout tasks = %d, want 10", n)
	}
	l := v.Loops[0]
	if l.Algorithm != "dapo" || l.RolloutEvery != 8 || l.StatesPerStep != 256 || l.ProposalsPerState != 8 {
		t.Errorf("loop = %+v, want dapo, rollout_every 8, 256 x 8", l)
	}
	exact(t, "loops.policy.steps", r.Loops["policy"].Steps, 96)
	if v.Rewards[0].Clip != 6 {
		t.Errorf("clip = %v, want 6", v.Rewards[0].Clip)
	}
	var after []int
	budget := 0.0
	for _, round := range phase(p, plan.PhaseRL)[0].RL.Calibration.Rounds {
		after = append(after, round.AfterStep)
		for _, c := range round.Calls.RealRuns {
			budget += c.Expected
		}
	}
	if len(after) != 3 || after[0] != 16 || after[1] != 40 || after[2] != 64 || budget != 100 {
		t.Errorf("calibration after %v with %v runs, want [16 40 64] and 100", after, budget)
	}
	seed := phase(p, plan.PhaseSeedRecords)
	if len(seed) != 1 || sum(seed[0].Calls.RealRuns).Expected != 100 {
		t.Errorf("seed records = %+v, want 100 real runs", seed)
	}
	exact(t, "totals.real_runs", r.Totals.RealRuns, 200)
	exact(t, "roles.rwm.calls", r.Roles["rwm"].Calls, 24576)
	exact(t, "rl refreshes", phase(p, plan.PhaseRL)[0].RL.Refreshes, 12)
	// RL training: the paper's $56.1k with training less $40.1k of data
	// generation alone, over 96 updates; a DAPO step whose groups are all
	// dropped makes no update, so the low count is 0.
	u := r.Loops["policy"].Updates
	if u == nil {
		t.Fatal("loops.policy.updates missing")
	}
	if u.Count.Low != 0 || u.Count.Expected != 96 || u.Count.High != 96 {
		t.Errorf("loops.policy.updates.count = %+v, want 0 / 96 / 96", u.Count)
	}
	if math.Abs(u.USD.Expected-16000) > 0.5 || u.USD.High != u.USD.Expected {
		t.Errorf("loops.policy.updates.usd = %+v, want $16,000 expected and high", u.USD)
	}
	runs := 0.0
	for _, e := range r.Environments {
		runs += e.USD.Expected
	}
	if got := r.Totals.USDGPU.Expected; math.Abs(got-(runs+u.USD.Expected)) > 1e-6 {
		t.Errorf("totals.usd_gpu = %v, want the real runs' %v plus the updates' %v", got, runs, u.USD.Expected)
	}
	if got := r.GPUHoursByType["B200"].Expected; math.Abs(got-(2400+u.GPUHours.Expected)) > 1e-6 {
		t.Errorf("B200 GPU-hours = %v, want 2,400 of real runs plus the updates' %v", got, u.GPUHours.Expected)
	}
	if len(phase(p, plan.PhaseEvaluation)) != 0 {
		t.Error("lm2lm.hcl has no evaluation block, but the plan has an evaluation phase")
	}
	if ds := r.CheckCaps(v.Budget); ds.HasErrors() {
		t.Errorf("lm2lm breaks its own caps:\n%s", ds.Format(0))
	}
}

func sum(m map[string]plan.Count) plan.Count {
	var c plan.Count
	for _, x := range m {
		c = c.Add(x)
	}
	return c
}

func TestAcceptanceLM2LMEval(t *testing.T) {
	p, r := loadSpec(t, "lm2lm-eval")
	ev := phase(p, plan.PhaseEvaluation)
	if len(ev) != 1 {
		t.Fatalf("evaluation phases = %d, want 1", len(ev))
	}
	// 10 holdout tasks x 3 states x 4 proposals x 3 arms (policy, Base,
	// Base-ICL); the world model predicts each evaluated proposal.
	exact(t, "evaluation real runs", sum(ev[0].Calls.RealRuns), 360)
	exact(t, "evaluation rwm calls", ev[0].Calls.LLM["rwm"], 360)
	exact(t, "evaluation proposer_icl calls", ev[0].Calls.LLM["proposer_icl"], 120)
	exact(t, "totals.real_runs", r.Totals.RealRuns, 560)
}

func TestAcceptanceLM2LMVerifyAll(t *testing.T) {
	p, r := loadSpec(t, "lm2lm-verify-all")
	l := p.Variants[0].Loops[0]
	if l.Algorithm != "grpo" || l.StatesPerStep != 32 || l.ProposalsPerState != 8 {
		t.Errorf("loop = %+v, want grpo 32 x 8", l)
	}
	exact(t, "loops.policy.steps", r.Loops["policy"].Steps, 100)
	for _, e := range p.Variants[0].Envs {
		if e.GPUHours != plan.Exact(45) || e.GPUs != 8 || e.Hours != plan.Exact(5.625) {
			t.Errorf("environment %s runs %v GPUs x %v h = %v GPU-hours, want 8 x 5.625 = 45", e.Name, e.GPUs, e.Hours, e.GPUHours)
		}
	}
	exact(t, "totals.real_runs", r.Totals.RealRuns, 25600)
	exact(t, "totals.gpu_hours", r.Totals.GPUHours, 1152000)
	price := p.Variants[0].Prices["B200"]
	exact(t, "totals.usd_gpu", r.Totals.USDGPU, 1152000*price)
	if r.Totals.USD.Expected <= 16e6 {
		t.Errorf("totals.usd = %v, want over $16M", r.Totals.USD.Expected)
	}
	if price == 14 {
		exact(t, "totals.usd_gpu at $14", r.Totals.USDGPU, 16128000)
	}
	exact(t, "gpu_hours_by_type.B200", r.GPUHoursByType["B200"], 1152000)
}

func TestAcceptanceCriticEvolve(t *testing.T) {
	p, r := loadSpec(t, "critic-evolve")
	v := p.Variants[0]
	if len(v.Envs) != 1 || tasks(p, "train") != 29 {
		t.Errorf("environments %d with %d train tasks, want 1 with 29", len(v.Envs), tasks(p, "train"))
	}
	l := v.Loops[0]
	if l.Islands != 3 || l.Rounds != 10 || l.MigrationEvery != 4 || l.Ideas != 16 || l.Verifications != 1 {
		t.Errorf("loop = %+v, want 3 islands x 10 rounds, migration 4, 16 ideas, 1 verification", l)
	}
	if v.Critics[0].Votes != 16 {
		t.Errorf("votes = %d, want 16", v.Critics[0].Votes)
	}
	temps := map[string]float64{}
	for _, role := range v.Roles {
		temps[role.Kind] = role.Temperature
	}
	if temps["proposer"] != 0.8 || temps["summarizer"] != 0.4 || temps["critic"] != 0.7 {
		t.Errorf("temperatures = %v, want proposer 0.8, summarizer 0.4, critic 0.7", temps)
	}
	exact(t, "totals.real_runs", r.Totals.RealRuns, 870)
	exact(t, "roles.critic.calls", r.Roles["critic"].Calls, 222720)
	if ds := r.CheckCaps(v.Budget); ds.HasErrors() {
		t.Errorf("critic-evolve breaks its own caps:\n%s", ds.Format(0))
	}
}

// The papers' None arm is vanilla OpenEvolve: with no critic to choose, it
// generates only the ideas it verifies, so its LLM calls compare with the
// critic arm's at the same 870 verifications.
func TestAcceptanceOpenEvolve(t *testing.T) {
	p, r := loadSpec(t, "openevolve")
	v := p.Variants[0]
	if l := v.Loops[0]; l.Ideas != 1 || l.Verifications != 1 || l.Select != "random" || l.Critic != "" {
		t.Errorf("loop = %+v, want 1 idea, 1 verification, random, no critic", l)
	}
	exact(t, "totals.real_runs", r.Totals.RealRuns, 870)
	exact(t, "roles.proposer.calls", r.Roles["proposer"].Calls, 870)
	exact(t, "roles.implementer.calls", r.Roles["implementer"].Calls, 870)
	// The critic arm extends it and verifies the best of 16.
	_, cr := loadSpec(t, "critic-evolve")
	exact(t, "critic-evolve roles.proposer.calls", cr.Roles["proposer"].Calls, 13920)
	exact(t, "critic-evolve roles.implementer.calls", cr.Roles["implementer"].Calls, 13920)
}

func TestAcceptanceCriticGRPO(t *testing.T) {
	p, r := loadSpec(t, "critic-grpo")
	v := p.Variants[0]
	l := v.Loops[0]
	if l.StatesPerStep != 16 || l.ProposalsPerState != 16 || !l.UntilBudget {
		t.Errorf("loop = %+v, want 16 x 16 until_budget", l)
	}
	c := v.Critics[0]
	if c.Votes != 16 || c.Threshold != 0.25 || !near(c.Routed.Expected, 0.363) {
		t.Errorf("critic = %+v, want k 16, threshold 0.25, routed 0.363", c)
	}
	steps := r.Loops[l.Name].Steps
	if steps.Expected != 107 || steps.Low != 39 || steps.High != 107 {
		t.Errorf("loops.%s.steps = %+v, want {39 107 107}", l.Name, steps)
	}
	if r.Totals.RealRuns.High > 10000 {
		t.Errorf("plans %v real runs at most, over the 10,000 budget", r.Totals.RealRuns.High)
	}
	if ds := r.CheckCaps(v.Budget); ds.HasErrors() {
		t.Errorf("critic-grpo breaks its own caps:\n%s", ds.Format(0))
	}
}

func TestAcceptanceCriticGRPOVerifyAll(t *testing.T) {
	p, r := loadSpec(t, "critic-grpo-verify-all")
	l := p.Variants[0].Loops[0]
	exact(t, "loops."+l.Name+".steps", r.Loops[l.Name].Steps, 39)
	if r.Totals.RealRuns.High > 10000 {
		t.Errorf("plans %v real runs at most, over the 10,000 budget", r.Totals.RealRuns.High)
	}
}

func TestAcceptanceCriticSweep(t *testing.T) {
	p, r := loadSpec(t, "critic-sweep")
	if len(p.Variants) != 8 || len(r.Variants) != 8 {
		t.Fatalf("variants = %d in the plan, %d in the report; want 8 (4 votes x 2 thresholds)", len(p.Variants), len(r.Variants))
	}
	var total plan.Count
	for _, v := range r.Variants {
		total = total.Add(v.Totals.USD)
		if len(v.Overrides) != 2 {
			t.Errorf("variant %s overrides %v, want 2 axes", v.Name, v.Overrides)
		}
	}
	if !near(total.Expected, r.Totals.USD.Expected) {
		t.Errorf("top-level usd %v, want the sum over variants %v", r.Totals.USD.Expected, total.Expected)
	}
	// More votes cost more critic calls for the same steps.
	if r.Variants[0].Roles["critic"].Calls.Expected >= r.Variants[len(r.Variants)-1].Roles["critic"].Calls.Expected {
		t.Errorf("critic calls do not grow with votes: first %v, last %v", r.Variants[0].Roles["critic"].Calls, r.Variants[len(r.Variants)-1].Roles["critic"].Calls)
	}
}

func TestAcceptanceSmallLocal(t *testing.T) {
	_, r := loadSpec(t, "small-local")
	// 3 baselines (no baseline declared: 2 train + 1 holdout task) + 4 seed
	// + 2 calibration + 1 holdout task x max(2, 2) evaluation runs when
	// every build succeeds; 5% of builds fail as expected, up to half. A
	// calibration round runs candidates its rollouts built, so its 2 runs
	// do not depend on the builds.
	if c, want := r.Totals.RealRuns, (plan.Count{Low: 8, Expected: 3 + 2 + 6*0.95, High: 11}); !near(c.Low, want.Low) || !near(c.Expected, want.Expected) || !near(c.High, want.High) {
		t.Errorf("totals.real_runs = %+v, want %+v", c, want)
	}
	if len(r.Phases) == 0 || r.Phases[0].Kind != plan.PhaseBaselines {
		t.Fatalf("first phase = %+v, want the baselines phase", r.Phases)
	}
	exact(t, "phases.baselines.real_runs", r.Phases[0].RealRuns, 3)
}

// The quickstarts declare no baseline: the estimate shows the real runs
// that measure them, in a baselines phase that comes first, in every total.
func TestAcceptanceQuickstartBaselines(t *testing.T) {
	for _, c := range []struct {
		spec             string
		baselines, total float64
	}{
		// 6 tasks (4 train, 2 holdout) + 16 seed + 3 x 6 calibration + 2 x 2 evaluation.
		{"quickstart", 6, 44},
		// 2 train tasks + 2 tasks x 2 islands x 4 rounds x 1 verification.
		{"quickstart-critic", 2, 18},
	} {
		p, r := loadSpec(t, c.spec)
		ph := phase(p, plan.PhaseBaselines)
		if len(ph) != 1 || p.Variants[0].Phases[0] != ph[0] {
			t.Fatalf("%s: want one baselines phase, first; got %d", c.spec, len(ph))
		}
		if len(ph[0].Baselines.Tasks) != int(c.baselines) || len(ph[0].Calls.LLM) != 0 {
			t.Errorf("%s: baselines phase lists %d tasks and %d LLM roles, want %v and none", c.spec, len(ph[0].Baselines.Tasks), len(ph[0].Calls.LLM), c.baselines)
		}
		exact(t, c.spec+" phases.baselines.real_runs", r.Phases[0].RealRuns, c.baselines)
		// Every build succeeding is the high end; the builder's declared
		// failures lower the expected and low figures.
		if got := r.Totals.RealRuns.High; math.Abs(got-c.total) > 1e-9 {
			t.Errorf("%s totals.real_runs high = %v, want %v", c.spec, got, c.total)
		}
		// Every run costs 1 CPU x 0.001 hours at $0.05 an hour.
		if got := r.Totals.GPUHours.High; math.Abs(got-c.total*0.001) > 1e-9 {
			t.Errorf("%s totals.gpu_hours high = %v, want %v", c.spec, got, c.total*0.001)
		}
		if got := r.Totals.USDGPU.High; math.Abs(got-c.total*0.001*0.05) > 1e-9 {
			t.Errorf("%s totals.usd_gpu high = %v, want %v", c.spec, got, c.total*0.001*0.05)
		}
		// 2 runs at a time.
		exact(t, c.spec+" phases.baselines.wall_hours", r.Phases[0].WallHours, c.baselines*0.001/2)
	}
}

// The LM2LM specs declare every environment's baseline (seed 000 treats the
// reference metric as known), so they plan no baseline runs.
func TestAcceptanceLM2LMNoBaselineRuns(t *testing.T) {
	for _, name := range []string{"lm2lm", "lm2lm-eval", "lm2lm-verify-all", "critic-evolve", "critic-grpo", "critic-grpo-verify-all"} {
		p, _ := loadSpec(t, name)
		if ph := phase(p, plan.PhaseBaselines); len(ph) != 0 {
			t.Errorf("%s plans baseline runs for %d tasks", name, len(ph[0].Baselines.Tasks))
		}
	}
}

// The estimate lists what it assumes, with the value's range and where the
// spec states it (or that it is a default).
func TestAssumptionsListed(t *testing.T) {
	_, r := loadSpec(t, "critic-grpo")
	by := map[string]*Assumption{}
	for _, a := range r.Assumptions {
		by[a.Name] = a
	}
	rs := by["critic.screen.routed_share"]
	if rs == nil || rs.Value != (plan.Count{Low: 0.363, Expected: 0.363, High: 1}) || !strings.Contains(rs.From, "critic-grpo.hcl:") {
		t.Errorf("routed share: %+v", rs)
	}
	bf := by["role.implementer.build_failures"]
	if bf == nil || bf.From != "default" || bf.Value != (plan.Count{}) {
		t.Errorf("build failures: %+v", bf)
	}
	if h := by["environment.mls_lite.hours_per_run"]; h == nil || h.Value.Expected != 0.75 {
		t.Errorf("hours per run: %+v", h)
	}
	for name := range by {
		if strings.HasPrefix(name, "prices.") && name != "prices.H100.usd_per_gpu_hour" {
			t.Errorf("%s: a price no run pays is listed", name)
		}
	}
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil || !strings.Contains(b.String(), "\nAssumptions\n") {
		t.Errorf("the table has no Assumptions section (%v)", err)
	}
}

// quickstart-slurm's runs are CPU work (run_cost.gpus = 0): the estimate
// counts its real runs and no GPU-hour, of any type.
func TestAcceptanceQuickstartSlurmCPU(t *testing.T) {
	p, r := loadSpec(t, "quickstart-slurm")
	if p.Variants[0].Envs[0].GPUs != 0 {
		t.Fatalf("specs/quickstart-slurm.hcl declares %d GPUs per run, want 0", p.Variants[0].Envs[0].GPUs)
	}
	if r.Totals.RealRuns.High == 0 {
		t.Errorf("no real runs: %+v", r.Totals.RealRuns)
	}
	exact(t, "totals.gpu_hours", r.Totals.GPUHours, 0)
	if len(r.GPUHoursByType) != 0 {
		t.Errorf("gpu_hours_by_type = %+v, want none", r.GPUHoursByType)
	}
}
