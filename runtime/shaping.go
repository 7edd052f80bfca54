package runtime

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/formula"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// shaper computes the rewards of a group of candidates from a reward as the
// plan resolved it: every default filled and every formula checked by the
// compiler, so the runtime only evaluates.
type shaper struct {
	r          *plan.Reward
	value      *formula.Expr
	infeasible *formula.Expr
	// c is the clip; 0 means no clip (no formula of the reward reads c).
	c float64
}

func newShaper(r *plan.Reward) (*shaper, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: the plan names no reward for this loop", errPermanent)
	}
	s := &shaper{r: r, c: r.Clip}
	var err error
	if s.value, err = planExpr(r.Value, "reward."+r.Name+".value"); err != nil {
		return nil, err
	}
	if s.infeasible, err = planExpr(r.Infeasible, "reward."+r.Name+".infeasible"); err != nil {
		return nil, err
	}
	return s, nil
}

// planExpr rebuilds a formula from the tree the compiler checked; it does
// not parse the text. The plan's tree is the formula package's own type.
func planExpr(f plan.Formula, what string) (*formula.Expr, error) {
	e, err := formula.FromTree(f.Source, f.Tree)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v (compile the spec again with this version of assay)", errPermanent, what, err)
	}
	return e, nil
}

// candidate is one scored proposal of a group.
type candidate struct {
	Proposal   plugins.Proposal `json:"proposal"`
	Predicted  float64          `json:"predicted_gain"`
	HasReal    bool             `json:"has_real,omitempty"`
	RealGain   float64          `json:"real_gain,omitempty"`
	Infeasible bool             `json:"infeasible,omitempty"`
	Repeat     bool             `json:"repeat,omitempty"`
	LabelScore float64          `json:"label_score,omitempty"`
	Routed     bool             `json:"routed,omitempty"`
	Skipped    bool             `json:"skipped,omitempty"` // routed to a real run the budget could not pay: no reward
	// Improve: the candidate was judged to beat its parent (by its real
	// run where it has one, else by the critic's verdict).
	Improve bool    `json:"improve,omitempty"`
	Reward  float64 `json:"reward"`
	Bonus   float64 `json:"diversity_bonus,omitempty"`
	// sample is the proposer call the proposal was sampled from.
	sample *sampled
}

// proposalKey identifies a proposal's content, for repeat detection.
func proposalKey(p plugins.Proposal) string {
	if len(p.Edits) == 0 {
		return "text:" + strings.TrimSpace(p.Text) + "\x00" + p.Patch
	}
	// Sorted in place and written in one allocation: every candidate's
	// key is made, and most have one or two edits.
	var arr [8]string
	keys, n := arr[:0], 0
	for k, v := range p.Edits {
		keys = append(keys, k)
		n += len(k) + len(v) + 2
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(p.Edits[k])
		b.WriteByte(';')
	}
	return b.String()
}

// markRepeats flags every feasible proposal whose content equals one its
// state already holds (prior: the task's records in the world model's
// context and in the state's history) or an earlier feasible one of the
// group. A proposal that did not build is infeasible, not a repeat.
func markRepeats(g []candidate, prior map[string]bool) {
	seen := map[string]bool{}
	for i := range g {
		if g[i].Infeasible || g[i].Skipped {
			g[i].Repeat = false
			continue
		}
		k := proposalKey(g[i].Proposal)
		g[i].Repeat = seen[k] || prior[k]
		seen[k] = true
	}
}

// diversityBonus is weight / n, where n is how many proposals of the group
// share the candidate's mechanism direction: a direction alone earns the
// full weight, and the bonus shrinks as more of the group crowd into it.
func diversityBonus(g []candidate, weight float64) []float64 {
	count := map[string]int{}
	for _, c := range g {
		count[c.Proposal.Mechanism]++
	}
	out := make([]float64, len(g))
	for i, c := range g {
		out[i] = weight / float64(count[c.Proposal.Mechanism])
	}
	return out
}

// shape sets the Reward of every candidate of a group: valid ones by the
// value formula, repeats get (lowest valid reward) - delta, infeasible ones
// the infeasible formula.
func (s *shaper) shape(g []candidate, task taskInfo, prior map[string]bool) error {
	markRepeats(g, prior)
	var bonus []float64
	if s.r.DiversityWeight != 0 {
		bonus = diversityBonus(g, s.r.DiversityWeight)
	}
	scale := task.Scale
	if s.r.Normalize == "none" || scale == 0 {
		scale = 1
	}
	minValid := math.Inf(1)
	for i := range g {
		c := &g[i]
		if c.Infeasible || c.Repeat || c.Skipped {
			continue
		}
		gain := c.Predicted
		switch s.r.GainFrom {
		case "real":
			gain = c.RealGain
		case "critic":
			// A critic's label is the signal; gain is the real one where a
			// candidate was routed to a real run, else unknown (zero).
			gain = c.RealGain
		}
		if bonus != nil {
			c.Bonus = bonus[i]
		}
		v, err := s.value.Eval(formula.RewardEnv{PredictedGain: c.Predicted, Gain: gain, RealGain: c.RealGain, Scale: scale,
			Baseline: task.Baseline, C: s.c, DiversityBonus: c.Bonus, LabelScore: c.LabelScore}.Env())
		if err != nil {
			return err
		}
		c.Reward = v.Num
		minValid = min(minValid, c.Reward)
	}
	if math.IsInf(minValid, 1) {
		// No valid candidate: the lowest reward the infeasible rule gives.
		minValid = 0
		if v, err := s.infeasible.Eval(formula.InfeasibleEnv{C: s.c, MinValid: 0, Delta: s.r.RepeatPenalty}.Env()); err == nil {
			minValid = v.Num
		}
	}
	ienv := formula.InfeasibleEnv{C: s.c, MinValid: minValid, Delta: s.r.RepeatPenalty}.Env()
	for i := range g {
		c := &g[i]
		switch {
		case c.Skipped:
			c.Reward = 0 // no reward: left out of the update
		case c.Infeasible:
			v, err := s.infeasible.Eval(ienv)
			if err != nil {
				return err
			}
			c.Reward = v.Num
		case c.Repeat:
			c.Reward = minValid - s.r.RepeatPenalty
		}
	}
	return nil
}

// advantages returns the group-relative advantages (r - mean) / std of a
// group's rewards, and false when the group has zero variance (every reward
// equal), which carries no learning signal.
func advantages(rewards []float64) ([]float64, bool) {
	n := float64(len(rewards))
	if n == 0 {
		return nil, false
	}
	var mean float64
	for _, r := range rewards {
		mean += r
	}
	mean /= n
	var v float64
	for _, r := range rewards {
		v += (r - mean) * (r - mean)
	}
	std := math.Sqrt(v / n)
	out := make([]float64, len(rewards))
	if std < 1e-12 {
		return out, false
	}
	for i, r := range rewards {
		out[i] = (r - mean) / std
	}
	return out, true
}

// verdict is the aggregate of a candidate's critic votes.
type verdict struct {
	Label        string  `json:"label"`
	Uncertainty  float64 `json:"uncertainty"`
	MeanRank     float64 `json:"mean_rank"`
	ImproveShare float64 `json:"improve_share"`
	Tied         bool    `json:"tied,omitempty"`
	Routed       bool    `json:"routed"`
}

// improving reports whether a label says the child beats its parent.
func improving(space, label string) bool {
	r := payload.LabelRank(space, label)
	return r >= 0 && r < tieRank(space)
}

func tieRank(space string) int {
	if space == payload.Labels5 {
		return payload.LabelRank(space, payload.Label5Tie)
	}
	return payload.LabelRank(space, payload.LabelTie)
}

// aggregate turns k votes into a verdict. Majority: the most voted label; a
// tie between labels follows the tie rule (route: send it to a real run;
// lose: the worst tied label; tie: the space's Tie label). Mean rank: the
// label nearest the mean rank, a half-way mean following the same rule.
// Uncertainty is always 1 - the largest vote share. Unknown labels count as
// the worst label.
func aggregate(c *plan.Critic, votes []string) verdict {
	space := c.Labels
	labels := payload.LabelSet(space)
	worst := len(labels) - 1
	counts := make([]int, len(labels))
	var rankSum, improve float64
	for _, v := range votes {
		r := payload.LabelRank(space, v)
		if r < 0 {
			r = worst
		}
		counts[r]++
		rankSum += float64(r)
		if r < tieRank(space) {
			improve++
		}
	}
	k := float64(len(votes))
	out := verdict{}
	if k == 0 {
		out.Label, out.Uncertainty, out.MeanRank, out.Tied = labels[worst], 1, float64(worst), true
		return out
	}
	best := slices.Max(counts)
	out.Uncertainty = 1 - float64(best)/k
	out.MeanRank = rankSum / k
	out.ImproveShare = improve / k
	var tied []int
	for r, n := range counts {
		if n == best {
			tied = append(tied, r)
		}
	}
	resolve := func(cands []int) string {
		out.Tied = true
		switch c.Tie {
		case "lose":
			return labels[cands[len(cands)-1]]
		case "tie":
			return labels[tieRank(space)]
		default: // route
			return labels[cands[0]]
		}
	}
	if c.Aggregate == "mean_rank" {
		lo := math.Floor(out.MeanRank)
		switch frac := out.MeanRank - lo; {
		case math.Abs(frac-0.5) < 1e-9:
			out.Label = resolve([]int{int(lo), int(lo) + 1})
		case frac < 0.5:
			out.Label = labels[int(lo)]
		default:
			out.Label = labels[int(lo)+1]
		}
		return out
	}
	if len(tied) == 1 {
		out.Label = labels[tied[0]]
	} else {
		out.Label = resolve(tied)
	}
	return out
}

// router decides from a verdict whether a candidate goes to a real run, by
// the critic's route formula as the plan carries it, and by its tie rule.
type router struct {
	c    *plan.Critic
	expr *formula.Expr // nil: no route formula
}

func newRouter(c *plan.Critic) (*router, error) {
	rt := &router{c: c}
	if c.Route != nil {
		e, err := planExpr(*c.Route, "critic."+c.Name+".route")
		if err != nil {
			return nil, err
		}
		rt.expr = e
	}
	return rt, nil
}

// route sets v.Routed: the route formula, or a tie under the "route" rule.
func (r *router) route(v *verdict, votes int) error {
	routed := false
	if r.expr != nil {
		val, err := r.expr.Eval(formula.RouteEnv{Uncertainty: v.Uncertainty, Threshold: r.c.Threshold, Votes: float64(votes),
			Agreement: 1 - v.Uncertainty, MeanRank: v.MeanRank, ImproveShare: v.ImproveShare}.Env())
		if err != nil {
			return err
		}
		routed = val.Bool
	}
	v.Routed = routed || (v.Tied && r.c.Tie == "route")
	return nil
}
