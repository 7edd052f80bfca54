package runtime

import "sync"

// Measured is what a run did, in the estimate's own terms and field names
// (see package estimate), so the two can be compared figure by figure:
// calls per role, steps and candidates per loop, real runs per phase and
// per environment, and the shares the estimate assumes (routed, build
// failures) as measured.
type Measured struct {
	Roles        map[string]*MeasuredRole  `json:"roles"`
	Loops        map[string]*MeasuredLoop  `json:"loops"`
	Phases       map[string]*MeasuredPhase `json:"phases"`
	Environments map[string]*MeasuredEnv   `json:"environments"`

	// CriticTrainings are the critic_training phases' figures.
	CriticTrainings map[string]*MeasuredCriticTraining `json:"critic_trainings,omitempty"`

	// RefusedEdits counts the answers (a proposer's, or a builder's,
	// repair or not) whose edits were outside their knobs' types, each
	// refused before any run.
	RefusedEdits int `json:"refused_edits,omitempty"`
}

// MeasuredRole is one role's calls. For a builder role, Built counts its
// builds (in every phase) and BuildFailed those that did not build.
type MeasuredRole struct {
	Calls       int     `json:"calls"`
	TokensIn    int     `json:"tokens_in"`
	TokensOut   int     `json:"tokens_out"`
	USD         float64 `json:"usd"`
	Built       int     `json:"built,omitempty"`
	BuildFailed int     `json:"build_failed,omitempty"`
	BuildFail   float64 `json:"build_failure_rate,omitempty"`
	// Reasks counts answers that could not be read and were asked again;
	// Unparsed the calls whose answer could still not be read (a critic's
	// vote so left is not counted in its verdict).
	Reasks   int `json:"reasks,omitempty"`
	Unparsed int `json:"unparsed,omitempty"`
}

// MeasuredLoop is one loop's figures. Judged counts candidates a critic
// judged and Routed those it sent to a real run; Built counts build
// attempts and BuildFailed those that did not build.
type MeasuredLoop struct {
	Steps       int     `json:"steps"`
	Candidates  int     `json:"candidates"`
	Judged      int     `json:"judged,omitempty"`
	Routed      int     `json:"routed,omitempty"`
	RoutedShare float64 `json:"routed_share,omitempty"`
	Built       int     `json:"built,omitempty"`
	BuildFailed int     `json:"build_failed,omitempty"`
	BuildFail   float64 `json:"build_failure_rate,omitempty"`
	// Repairs counts builder repairs (each one call): of failed builds,
	// and of candidates' runs that failed in their code; RunRepairs
	// counts those runs.
	Repairs    int `json:"repairs,omitempty"`
	RunRepairs int `json:"run_repairs,omitempty"`
	// Resampled counts the groups dynamic sampling drew in place of
	// dropped ones; Updates the policy updates an update command made.
	Resampled int `json:"resampled_groups,omitempty"`
	Updates   int `json:"updates,omitempty"`
	// ChildParents counts the programs of an evolution loop whose
	// children_per_parent children it proposed (the second stage of the
	// two-stage pair collection), ChildrenVerified those children its
	// real runs measured.
	ChildParents     int `json:"child_parents,omitempty"`
	ChildrenVerified int `json:"children_verified,omitempty"`
	// The critic measured on the candidates it judged that were verified
	// for real: AUROC of its vote share for an improving label against
	// whether the run improved, and the share of its errors (verdict and
	// run disagree on improving) that its uncertainty routed. Where only
	// routed candidates are verified (an RL screen), every error seen was
	// routed, so ErrorRecall is 1 by construction there.
	CriticVerified     int     `json:"critic_verified,omitempty"`
	CriticAUROC        float64 `json:"critic_auroc,omitempty"`
	CriticErrors       int     `json:"critic_errors,omitempty"`
	CriticErrorsRouted int     `json:"critic_errors_routed,omitempty"`
	ErrorRecall        float64 `json:"error_recall,omitempty"`
	// With an audit share, CriticAudited counts the unrouted candidates
	// verified anyway and CriticErrorsAudited their errors; each stands
	// for the unrouted candidates of its batch (unrouted / audited), so
	// ErrorRecall is the routed errors over the routed errors and those
	// the audit estimates among all unrouted candidates (docs/plan.md).
	CriticAudited       int `json:"critic_audited,omitempty"`
	CriticErrorsAudited int `json:"critic_errors_audited,omitempty"`
}

// critPoint is one critic-judged candidate verified for real.
type critPoint struct {
	score             float64 // share of votes for an improving label
	improved, errored bool
	routed            bool
	// audited: verified by the loop's audit share though not routed;
	// weight is how many unrouted candidates it stands for (0 is 1).
	audited bool
	weight  float64
}

// MeasuredPhase is one phase's reserved real runs.
type MeasuredPhase struct {
	RealRuns int `json:"real_runs"`
}

// MeasuredEnv is one environment's reserved real runs.
type MeasuredEnv struct {
	RealRuns int `json:"real_runs"`
}

// measured collects Measured under a lock; calls come from many goroutines.
// Dollars are summed in integer nanodollars, so a resumed run, whose calls
// are counted again in another order, ends with the same figures.
type measured struct {
	mu   sync.Mutex
	m    Measured
	usd  map[string]int64
	crit map[string][]critPoint
}

func newMeasured() *measured {
	return &measured{usd: map[string]int64{}, crit: map[string][]critPoint{}, m: Measured{Roles: map[string]*MeasuredRole{}, Loops: map[string]*MeasuredLoop{},
		Phases: map[string]*MeasuredPhase{}, Environments: map[string]*MeasuredEnv{}}}
}

func (m *measured) call(role string, in, out int, usd float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.m.Roles[role]
	if r == nil {
		r = &MeasuredRole{}
		m.m.Roles[role] = r
	}
	r.Calls++
	r.TokensIn += in
	r.TokensOut += out
	m.usd[role] += nano(usd)
}

// role is a role's figures, made on first use; m.mu is held.
func (m *measured) role(name string) *MeasuredRole {
	r := m.m.Roles[name]
	if r == nil {
		r = &MeasuredRole{}
		m.m.Roles[name] = r
	}
	return r
}

// reask counts one answer of a role asked again.
func (m *measured) reask(role string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.role(role).Reasks++
}

// unparsed counts one call of a role whose answer could not be read.
func (m *measured) unparsed(role string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.role(role).Unparsed++
}

// build counts one build of a builder role.
func (m *measured) build(role string, failed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.m.Roles[role]
	if r == nil {
		r = &MeasuredRole{}
		m.m.Roles[role] = r
	}
	r.Built++
	if failed {
		r.BuildFailed++
	}
}

// refusedEdits counts one answer whose edits were outside their types.
func (m *measured) refusedEdits() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m.RefusedEdits++
}

func (m *measured) realRun(phase, env string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if phase != "" {
		if m.m.Phases[phase] == nil {
			m.m.Phases[phase] = &MeasuredPhase{}
		}
		m.m.Phases[phase].RealRuns++
	}
	if m.m.Environments[env] == nil {
		m.m.Environments[env] = &MeasuredEnv{}
	}
	m.m.Environments[env].RealRuns++
}

// loop applies f to a loop's figures under the lock.
func (m *measured) loop(name string, f func(l *MeasuredLoop)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.m.Loops[name]
	if l == nil {
		l = &MeasuredLoop{}
		m.m.Loops[name] = l
	}
	f(l)
}

// critic records a critic-judged candidate of a loop that a real run
// verified.
func (m *measured) critic(loop string, p critPoint) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.crit[loop] = append(m.crit[loop], p)
}

// auroc is the probability that an improving candidate scores above one
// that does not (ties count half); 0 without both kinds.
func auroc(ps []critPoint) float64 {
	var pos, neg []float64
	for _, p := range ps {
		if p.improved {
			pos = append(pos, p.score)
		} else {
			neg = append(neg, p.score)
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		return 0
	}
	var s float64
	for _, a := range pos {
		for _, b := range neg {
			switch {
			case a > b:
				s++
			case a == b:
				s += 0.5
			}
		}
	}
	return s / float64(len(pos)*len(neg))
}

// snapshot is a deep copy with the shares computed.
func (m *measured) snapshot() *Measured {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := &Measured{Roles: map[string]*MeasuredRole{}, Loops: map[string]*MeasuredLoop{}, CriticTrainings: copyCriticTrainings(m.m.CriticTrainings)}
	for k, v := range m.m.Roles {
		c := *v
		c.USD = round6(float64(m.usd[k]) / 1e9)
		if c.Built > 0 {
			c.BuildFail = round6(float64(c.BuildFailed) / float64(c.Built))
		}
		out.Roles[k] = &c
	}
	for k, v := range m.m.Loops {
		c := *v
		if c.Judged > 0 {
			c.RoutedShare = round6(float64(c.Routed) / float64(c.Judged))
		}
		if c.Built > 0 {
			c.BuildFail = round6(float64(c.BuildFailed) / float64(c.Built))
		}
		out.Loops[k] = &c
	}
	for k, ps := range m.crit {
		c := out.Loops[k]
		if c == nil {
			c = &MeasuredLoop{}
			out.Loops[k] = c
		}
		c.CriticVerified, c.CriticAUROC = len(ps), round6(auroc(ps))
		errs := 0.0
		for _, p := range ps {
			if p.audited {
				c.CriticAudited++
			}
			if p.errored {
				c.CriticErrors++
				errs += p.stands()
				if p.routed {
					c.CriticErrorsRouted++
				}
				if p.audited {
					c.CriticErrorsAudited++
				}
			}
		}
		if c.CriticErrors > 0 {
			c.ErrorRecall = round6(float64(c.CriticErrorsRouted) / errs)
		}
	}
	out.Phases, out.Environments = cloneMap(m.m.Phases), cloneMap(m.m.Environments)
	out.RefusedEdits = m.m.RefusedEdits
	return out
}

func cloneMap[V any](m map[string]*V) map[string]*V {
	out := make(map[string]*V, len(m))
	for k, v := range m {
		c := *v
		out[k] = &c
	}
	return out
}

// stands is how many candidates a verified point stands for: its weight,
// or 1.
func (p critPoint) stands() float64 {
	if p.weight > 0 {
		return p.weight
	}
	return 1
}
