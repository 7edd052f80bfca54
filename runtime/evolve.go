package runtime

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"sort"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// program is a verified solution of an evolution loop: its proposal (the
// parent's edits with the child's on top) and its real gain.
type program struct {
	P    plugins.Proposal `json:"proposal"`
	Gain float64          `json:"gain"`
	// cand is the candidate key of the real run that measured it; "" for
	// the seed program (the task's baseline measures it).
	cand string
}

// island is one population of an evolution loop: every program it
// verified or received by migration, and its parent, the best of them
// (a child replaces its parent only when its real gain is higher).
type island struct {
	Progs  []program `json:"programs"`
	Parent int       `json:"parent"`
}

func (is *island) parent() program { return is.Progs[is.Parent] }

// add puts a program into the island, unless it holds one with the same
// content, and makes it the parent when its gain is higher.
func (is *island) add(p program) bool {
	k := proposalKey(p.P)
	for _, q := range is.Progs {
		if proposalKey(q.P) == k {
			return false
		}
	}
	is.Progs = append(is.Progs, p)
	if p.Gain > is.Progs[is.Parent].Gain {
		is.Parent = len(is.Progs) - 1
	}
	return true
}

// best returns the indices of the island's n best programs, by gain, the
// earlier first among equals.
func (is *island) best(n int) []int {
	idx := make([]int, len(is.Progs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return is.Progs[idx[a]].Gain > is.Progs[idx[b]].Gain })
	return idx[:min(n, len(idx))]
}

// RoundFigures are an evolution round's figures for one task.
type RoundFigures struct {
	Loop     string    `json:"loop"`
	Task     string    `json:"task"`
	Round    int       `json:"round"`
	Gains    []float64 `json:"island_gains"`
	Best     float64   `json:"best_gain"`
	Verified int       `json:"verified"`
	Routed   int       `json:"routed"`
	Replaced int       `json:"replaced"`
	// Migrated counts programs that moved to an island that did not hold
	// them; Cells the MAP-Elites cells filled.
	Migrated int     `json:"migrated,omitempty"`
	Cells    int     `json:"archive_cells,omitempty"`
	RealRuns int     `json:"real_runs"`
	USD      float64 `json:"usd"`
}

// newEvolution binds an evolution loop on every task of its split:
// islands evolve in rounds; per island-round the proposer makes ideas, each
// is implemented, summarized and judged by k critic votes; the best-ranked
// ideas are verified by real runs, and a parent is replaced only by a child
// whose real gain is higher. Every migration_every rounds the best parent
// is copied to the islands whose parent is worse.
func newEvolution(r *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	l := r.loops[ph.Evolution.Loop]
	if l == nil {
		return nil, fmt.Errorf("%w: the plan has no loop %q", errPermanent, ph.Evolution.Loop)
	}
	// The critic the plan binds ranks the ideas; without one (the papers'
	// "None" setting) ideas are verified by the select rule alone.
	c, rt, err := judgeOf(r, l)
	if err != nil {
		return nil, err
	}
	cont, err := newContinual(r, sc, ph, r.tasks.of("", l.Split), l.Rounds)
	if err != nil {
		return nil, err
	}
	return &evolution{s: r, sc: sc, ph: ph, l: l, c: c, rt: rt, cont: cont}, nil
}

// evolution is one evolution loop's phase: the loop and the critic that
// ranks its ideas, as the plan binds them, over the shared
// service.
type evolution struct {
	s  *service
	sc scope
	ph *plan.Phase
	l  *plan.Loop
	c  *plan.Critic // nil: ideas are verified by the select rule alone
	rt *router
	// cont adapts the critic as the loop runs; nil: it stays frozen.
	cont *continual
}

func (r *evolution) Execute() error {
	ph := r.ph
	l := r.l
	tasks := r.s.tasks.of("", l.Split)
	I, R := l.Islands, l.Rounds
	r.s.progress.start(ph.Name, len(tasks)*R, "rounds")
	for ti, t := range tasks {
		isl := make([]island, I)
		for i := range isl {
			isl[i] = island{Progs: []program{{P: seedParent()}}}
		}
		arch := newArchive(l.Features)
		for round := 0; round < R; round++ {
			if err := r.s.ctx.Err(); err != nil {
				return err
			}
			if err := r.cont.adapt(ti, t, round); err != nil {
				return err
			}
			fig := RoundFigures{Loop: l.Name, Task: t.Env + "/" + t.Name, Round: round + 1}
			for i := range isl {
				if err := r.islandRound(t, i, round, &isl[i], arch, &fig); err != nil {
					return err
				}
			}
			if m := l.MigrationEvery; m > 0 && I > 1 && (round+1)%m == 0 && round+1 < R {
				fig.Migrated = migrate(isl, l.MigrationRate)
			}
			for _, is := range isl {
				fig.Gains = append(fig.Gains, is.parent().Gain)
				fig.Best = max(fig.Best, is.parent().Gain)
			}
			fig.Cells = len(arch.cells)
			s := r.s.budget.Spent()
			fig.RealRuns, fig.USD = s.RealRuns, round6(s.USD)
			// A step of an evolution loop is a round, as the plan counts
			// it: round k is done once every task has run it.
			r.s.n.reachStep(round + 1)
			r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Steps = max(m.Steps, round+1) })
			if err := r.s.j.Append(journal.KindStep, fmt.Sprintf("%s/%s/%d", l.Name, fig.Task, round+1), fig); err != nil {
				return err
			}
			if err := r.s.j.Flush(); err != nil {
				return err
			}
			r.s.progress.step(fmt.Sprintf("%s round %d best gain %.4g", fig.Task, round+1, fig.Best))
		}
		if err := r.children(t, isl); err != nil {
			return err
		}
	}
	return nil
}

// migrate copies each island's best programs, a share rate of its
// programs (at least one), to the next island of the ring, as OpenEvolve
// migrates; what moves is decided before anything moves. It returns how
// many programs an island did not hold already.
func migrate(isl []island, rate float64) int {
	moves := make([][]program, len(isl))
	for i := range isl {
		n := max(1, int(math.Floor(rate*float64(len(isl[i].Progs)))))
		for _, k := range isl[i].best(n) {
			q := isl[i].Progs[k]
			moves[i] = append(moves[i], program{P: clone(q.P), Gain: q.Gain, cand: q.cand})
		}
	}
	moved := 0
	for i, ps := range moves {
		to := &isl[(i+1)%len(isl)]
		for _, p := range ps {
			if to.add(p) {
				moved++
			}
		}
	}
	return moved
}

// archive is a task's MAP-Elites archive: each cell of the feature grid
// keeps the best verified program that falls in it.
type archive struct {
	dims  []plan.Feature
	cells map[string]program
}

func newArchive(dims []plan.Feature) *archive {
	return &archive{dims: dims, cells: map[string]program{}}
}

// cell is the grid cell of program p among an island's programs.
func (a *archive) cell(p program, island []program) string {
	var b strings.Builder
	for i, d := range a.dims {
		if i > 0 {
			b.WriteByte('/')
		}
		fmt.Fprintf(&b, "%d", featureBin(d, p, island))
	}
	return b.String()
}

// featureBin is the bin of program p on one dimension: complexity is its
// number of edits; diversity the mean number of knobs in which it differs
// from the island's other programs; mechanism its mechanism direction,
// hashed; score its gain within the island's range of gains.
func featureBin(d plan.Feature, p program, island []program) int {
	top := d.Bins - 1
	switch d.Name {
	case "complexity":
		return min(len(p.P.Edits), top)
	case "diversity":
		var sum, n float64
		for _, q := range island {
			if proposalKey(q.P) == proposalKey(p.P) {
				continue
			}
			sum += float64(editDistance(p.P.Edits, q.P.Edits))
			n++
		}
		if n == 0 {
			return 0
		}
		return min(int(sum/n), top)
	case "mechanism":
		h := fnv.New32a()
		h.Write([]byte(p.P.Mechanism))
		return int(h.Sum32() % uint32(d.Bins))
	default: // score
		lo, hi := p.Gain, p.Gain
		for _, q := range island {
			lo, hi = math.Min(lo, q.Gain), math.Max(hi, q.Gain)
		}
		if hi <= lo {
			return 0
		}
		return min(int((p.Gain-lo)/(hi-lo)*float64(d.Bins)), top)
	}
}

// editDistance is the number of knobs two edit sets set differently.
func editDistance(a, b map[string]string) int {
	n := 0
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			n++
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			n++
		}
	}
	return n
}

// add files p into its cell, where it stays when it beats the cell's
// program.
func (a *archive) add(p program, island []program) {
	if len(a.dims) == 0 {
		return
	}
	c := a.cell(p, island)
	if q, ok := a.cells[c]; !ok || p.Gain > q.Gain {
		a.cells[c] = program{P: clone(p.P), Gain: p.Gain, cand: p.cand}
	}
}

// inspirations are what the proposer of an island-round sees beside its
// parent: the island's top programs other than the parent, then elites of
// other cells of the archive, drawn at random.
func (r *evolution) inspirations(t *taskInfo, is *island, arch *archive, key string) []record {
	l := r.l
	par := proposalKey(is.parent().P)
	var out []record
	seen := map[string]bool{par: true}
	for _, k := range is.best(len(is.Progs)) {
		if len(out) >= l.TopPrograms {
			break
		}
		p := is.Progs[k]
		if seen[proposalKey(p.P)] {
			continue
		}
		seen[proposalKey(p.P)] = true
		out = append(out, record{Task: t.Name, Env: t.Env, Proposal: clone(p.P), Gain: p.Gain})
	}
	if l.DiversePrograms == 0 || len(arch.cells) == 0 {
		return out
	}
	own := arch.cell(is.parent(), is.Progs)
	var cells []string
	for c, p := range arch.cells {
		if c != own && !seen[proposalKey(p.P)] {
			cells = append(cells, c)
		}
	}
	sort.Strings(cells)
	g := rng(r.s.v.Seed, key+"/diverse")
	g.Shuffle(len(cells), func(a, b int) { cells[a], cells[b] = cells[b], cells[a] })
	for _, c := range cells[:min(l.DiversePrograms, len(cells))] {
		p := arch.cells[c]
		out = append(out, record{Task: t.Name, Env: t.Env, Proposal: clone(p.P), Gain: p.Gain})
	}
	return out
}

func clone(p plugins.Proposal) plugins.Proposal {
	p.Edits = maps.Clone(p.Edits)
	return p
}

// merge applies an idea's edits on top of its parent's.
func merge(parent, idea plugins.Proposal) plugins.Proposal {
	out := idea
	out.Edits = maps.Clone(parent.Edits)
	if out.Edits == nil {
		out.Edits = map[string]string{}
	}
	maps.Copy(out.Edits, idea.Edits)
	out.Commit = parent.Commit // in source mode, the idea changes the parent's program
	return out
}

func (r *evolution) islandRound(t *taskInfo, i, round int, is *island, arch *archive, fig *RoundFigures) error {
	l, c, rt := r.l, r.c, r.rt
	n := l.Ideas
	type idea struct {
		p        plugins.Proposal
		v        verdict
		feasible bool
	}
	ideas := make([]idea, n)
	base := fmt.Sprintf("%s/%s/%s/i%d/r%d", l.Name, t.Env, t.Name, i, round)
	parent := is.parent().P
	parentCand, parentGain := is.parent().cand, is.parent().Gain
	insp := r.inspirations(t, is, arch, base)
	err := parallel(n, r.s.concurrency(l.Proposer), func(k int) error {
		key := fmt.Sprintf("%s/%d", base, k)
		p, _, ok, err := r.s.proposeWith(l.Proposer, key+"/propose", t, base, &parent, proposeOpts{inspirations: insp})
		r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Candidates++ })
		if err != nil || !ok {
			return err
		}
		if c == nil {
			child, ok, err := r.s.implement(l.Builder, l.Name, key+"/implement", t, merge(parent, p))
			ideas[k] = idea{child, verdict{}, ok}
			return err
		}
		v, child, ok, err := r.s.screen(l, key, t, parent, merge(parent, p), c, rt)
		ideas[k] = idea{child, v, ok}
		return err
	})
	if err != nil {
		return err
	}
	// With verify_routed every idea the critic routes is verified; the
	// select rule fills verifications_per_round from the rest.
	order := make([]int, 0, n)
	var routed []int
	judged := 0
	for k := range ideas {
		if !ideas[k].feasible {
			continue
		}
		judged++
		switch {
		case l.Routes && ideas[k].v.Routed:
			routed = append(routed, k)
		default:
			order = append(order, k)
		}
		if ideas[k].v.Routed {
			fig.Routed++
		}
	}
	if l.Routes {
		r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Judged += judged; m.Routed += len(routed) })
	}
	switch l.Select {
	case "random":
		g := rng(r.s.v.Seed, base+"/select")
		g.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	case "majority":
		sort.SliceStable(order, func(a, b int) bool {
			va, vb := ideas[order[a]].v, ideas[order[b]].v
			ia, ib := improving(c.Labels, va.Label), improving(c.Labels, vb.Label)
			if ia != ib {
				return ia
			}
			return va.Uncertainty < vb.Uncertainty
		})
	default: // best_mean_rank
		sort.SliceStable(order, func(a, b int) bool { return ideas[order[a]].v.MeanRank < ideas[order[b]].v.MeanRank })
	}
	V := l.Verifications
	if len(order) > V {
		order = order[:V]
	}
	order = append(routed, order...)
	runs := make([]realRun, len(order))
	for n, k := range order {
		key := fmt.Sprintf("%s/%d", base, k)
		runs[n] = realRun{Key: key, Task: t, Proposal: ideas[k].p, fix: fixerFor(l.Builder, l.Name, key+"/implement", t),
			lineage: &journal.Lineage{Candidate: key, Parent: clone(parent), ParentCandidate: parentCand}}
		if c != nil { // screened: summarized for the critic
			runs[n].fix = runs[n].fix.summarizing(l.Summarizer)
		}
	}
	out, err := r.s.runReal(r.sc, runs)
	if err != nil {
		return err
	}
	for n, o := range out {
		if o.Skipped || o.Failed || o.Infeasible {
			continue
		}
		fig.Verified++
		child := o.program(runs[n].Proposal)
		p := program{P: child, Gain: o.Gain, cand: runs[n].Key}
		if c != nil {
			// The critic judged the idea against this island's parent.
			v := ideas[order[n]].v
			better := o.Gain > is.parent().Gain
			r.s.measured.critic(l.Name, critPoint{score: v.ImproveShare, improved: better, errored: improving(c.Labels, v.Label) != better, routed: v.Routed})
			r.cont.observe(t, parent, child, parentGain, o.Gain, SummaryKey(runs[n].Key, o.repairKey))
		}
		before := is.Parent
		is.add(p)
		arch.add(p, is.Progs)
		if is.Parent != before {
			fig.Replaced++
		}
	}
	return nil
}
