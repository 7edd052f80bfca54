package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// MaxCriticEvalCalls bounds the critic calls of one evaluation (examples
// x votes, summed over its critics).
const MaxCriticEvalCalls = plan.MaxCriticEvalCalls

// CriticExample is what a critic sees of one labelled pair: the task, the
// parent and child programs, and the child's summary.
type CriticExample struct {
	Env, Task     string
	Parent, Child plugins.Proposal
	Summary       string
}

// CriticEvalResult is a critic evaluation's votes: Votes[critic][i] are
// the labels the critic's role answered for example i, one per vote; a
// failed call is "" (the metrics count it as the worst label).
type CriticEvalResult struct {
	ID     string                `json:"id"`
	Dir    string                `json:"dir"`
	Votes  map[string][][]string `json:"votes"`
	Totals Totals                `json:"totals"`
}

// CriticEval judges every example with each named critic of the plan's
// variant through the call path of a run's critic: each of a critic's
// votes on an example is one call of its role with the same request a
// run's screen sends, journaled under critic_eval/CRITIC/I/critic/V in a
// run directory of its own, charged against the variant's dollar cap,
// and, on resume (opts.Resume), taken from the journal rather than made
// again. It stops at the cap with the votes so far and the budget error.
func CriticEval(ctx context.Context, p *plan.Plan, opts Options, critics []string, ex []CriticExample) (*CriticEvalResult, error) {
	if opts.Dir == "" {
		opts.Dir = DefaultDir
	}
	if opts.Retries == 0 {
		opts.Retries = 2
	}
	if opts.Plugins == nil {
		return nil, errors.New("runtime: no plugin loader")
	}
	if opts.Clock == nil {
		opts.Clock = systemClock{}
	}
	if opts.ID == "" {
		opts.ID = newID(opts.Clock.Now())
	}
	if !idRE.MatchString(opts.ID) {
		return nil, fmt.Errorf("run id %q: use letters, digits, '.', '_' and '-' (at most 64)", opts.ID)
	}
	dir := filepath.Join(opts.Dir, opts.ID)
	p, err := planOfRun(p, opts, dir)
	if err != nil {
		return nil, err
	}
	v, err := pickVariant(p, opts.Variant)
	if err != nil {
		return nil, err
	}
	var cs []*plan.Critic
	calls := 0
	for _, name := range critics {
		c := findCritic(v, name)
		if c == nil {
			return nil, fmt.Errorf("the plan has no critic %q (it has %s)", name, criticNames(v))
		}
		cs = append(cs, c)
		calls += len(ex) * c.Votes
	}
	if calls > MaxCriticEvalCalls {
		return nil, fmt.Errorf("%d critic calls: one evaluation makes at most %d", calls, MaxCriticEvalCalls)
	}
	j, err := journal.Open(filepath.Join(dir, JournalFile))
	if err != nil {
		return nil, err
	}
	defer j.Close()
	if err := claimCriticEval(j, opts.ID, ex); err != nil {
		return nil, err
	}
	j.SetClock(opts.Clock.Now)
	r := newService(ctx, v, j, dir, opts)
	defer r.plugins.close()
	hash := p.VariantHash(v.Name)
	if err := j.SetMeta("run", runMeta{ID: opts.ID, Plan: p.Name, Hash: hash, Variant: v.Name, Seed: v.Seed, PID: os.Getpid(), Meta: opts.Meta, Budget: v.Budget}); err != nil {
		return nil, err
	}
	if err := setProvenance(j, opts, p, hash); err != nil {
		return nil, err
	}
	_ = j.SetMeta("state", StateRunning)
	res := &CriticEvalResult{ID: opts.ID, Dir: dir, Votes: map[string][][]string{}}
	var runErr error
	for _, c := range cs {
		votes, err := criticVotes(r, c, ex, metaCriticEval)
		res.Votes[c.Name] = votes
		if err != nil {
			runErr = err
			break
		}
	}
	res.Totals = r.totals()
	state, reason := StateFinished, ""
	if runErr != nil {
		state, reason = StateFailed, runErr.Error()
		if ctx.Err() != nil {
			state = StateInterrupted
		}
	}
	_ = j.SetMeta("totals", res.Totals)
	_ = j.SetMeta("state", state)
	_ = j.SetMeta("reason", reason)
	return res, runErr
}

// criticVotes asks critic c for its votes on every example, each keyed
// PREFIX/CRITIC/I/critic/V in the journal.
func criticVotes(r *service, c *plan.Critic, ex []CriticExample, prefix string) ([][]string, error) {
	k := c.Votes
	out := make([][]string, len(ex))
	for i := range out {
		out[i] = make([]string, k)
	}
	r.progress.start(prefix+"."+c.Name, len(ex)*k, "calls")
	err := parallel(len(ex)*k, r.concurrency(c.Role), func(n int) error {
		i, vote := n/k, n%k
		e := ex[i]
		req := payload.CritiqueRequest{Task: e.Task, Env: e.Env, Parent: e.Parent, Child: e.Child, Summary: e.Summary, Labels: c.Labels}
		var resp payload.CritiqueResponse
		key := fmt.Sprintf("%s/%s/%d/critic/%d", prefix, c.Name, i, vote)
		if err := r.complete(c.Role, key, req, &resp); err != nil && !errors.Is(err, errCallFailed) {
			return err
		}
		out[i][vote] = resp.Label
		return nil
	})
	return out, err
}

func findCritic(v *plan.Variant, name string) *plan.Critic {
	for _, c := range v.Critics {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func criticNames(v *plan.Variant) string {
	if len(v.Critics) == 0 {
		return "none"
	}
	s := ""
	for i, c := range v.Critics {
		if i > 0 {
			s += ", "
		}
		s += c.Name
	}
	return s
}

// metaCriticEval marks a journal as a critic evaluation's and keeps the
// digest of the examples it judges.
const metaCriticEval = "critic_eval"

type criticEvalMeta struct {
	Examples string `json:"examples"`
}

// claimCriticEval marks the journal as that of a critic evaluation of ex,
// or refuses it: a run's journal (its calls are keyed otherwise, and
// assay resume would run its plan), or an evaluation of other examples
// (their journaled answers are keyed by index, and would be taken for
// these).
func claimCriticEval(j *journal.Journal, id string, ex []CriticExample) error {
	b, err := json.Marshal(ex)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	want := criticEvalMeta{Examples: hex.EncodeToString(sum[:])}
	var got criticEvalMeta
	switch {
	case j.Meta(metaCriticEval, &got):
		if got != want {
			return fmt.Errorf("run %s evaluated other pairs: choose another id", id)
		}
		return nil
	case j.Meta("run", &runMeta{}):
		return fmt.Errorf("run %s is a run of its plan, not a critic evaluation: choose another id", id)
	}
	return j.SetMeta(metaCriticEval, want)
}
