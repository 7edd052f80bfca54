package runtime

import (
	"fmt"
	"math"

	"assay/compiler/plan"
	"assay/runtime/journal"
)

// EvalFigures are the evaluation results: Avg@k and Best@k of real gain
// over holdout states, the share of negative-gain proposals and the share
// of states whose best proposal beats the base configuration.
type EvalFigures struct {
	AvgAt     int            `json:"avg_at"`
	BestAt    int            `json:"best_at"`
	Avg       float64        `json:"avg_at_k"`
	Best      float64        `json:"best_at_k"`
	Negative  float64        `json:"negative_share"`
	BeatsBase float64        `json:"beats_base_share"`
	Tasks     []TaskEvalFigs `json:"tasks"`
}

// TaskEvalFigs is one task's evaluation.
type TaskEvalFigs struct {
	Task  string    `json:"task"`
	Gains []float64 `json:"gains"`
	Avg   float64   `json:"avg"`
	Best  float64   `json:"best"`
}

func (r *runner) evaluationPhase(ph *plan.Phase) error {
	e := r.v.Evaluation
	if e == nil {
		return fmt.Errorf("%w: the plan has an evaluation phase but no evaluation protocol", errPermanent)
	}
	split, avgAt, bestAt := e.Split, e.AvgAt, e.BestAt
	tasks := r.tasksOf("", split)
	if len(tasks) == 0 {
		return fmt.Errorf("evaluation: no %s tasks", split)
	}
	// k proposals per state, as the plan counted: max(avg_at, best_at).
	k := max(avgAt, bestAt)
	r.progress.start(ph.Name, len(tasks)*k, "runs")
	type item struct {
		t *taskInfo
		i int
	}
	var items []item
	for _, t := range tasks {
		for i := 0; i < k; i++ {
			items = append(items, item{t, i})
		}
	}
	runs := make([]realRun, len(items))
	ok := make([]bool, len(items))
	err := parallel(len(items), r.concurrency(ph.Proposer), func(n int) error {
		it := items[n]
		key := fmt.Sprintf("eval/%s/%s/%d", it.t.Env, it.t.Name, it.i)
		p, _, got, err := r.propose(ph.Proposer, key+"/propose", it.t, "eval/"+it.t.Env+"/"+it.t.Name, nil)
		if err != nil || !got {
			return err
		}
		p, feasible, err := r.implement(ph.Builder, "", key+"/implement", it.t, p)
		runs[n], ok[n] = realRun{Key: key, Task: it.t, Proposal: p}, feasible
		return err
	})
	if err != nil {
		return err
	}
	var todo []realRun
	var at []int
	for n := range runs {
		if ok[n] {
			todo = append(todo, runs[n])
			at = append(at, n)
		}
	}
	out, err := r.runReal(todo)
	if err != nil {
		return err
	}
	gains := make([]float64, len(items))
	valid := make([]bool, len(items))
	for n := range items {
		// An infeasible proposal counts as zero gain: the base setup stays.
		valid[n] = true
	}
	for m, n := range at {
		o := out[m]
		switch {
		case o.Skipped || o.Failed:
			valid[n] = false
		case !o.Infeasible:
			gains[n] = o.Gain
		}
	}
	fig := EvalFigures{AvgAt: avgAt, BestAt: bestAt}
	var neg, total, beats int
	for ti, t := range tasks {
		tf := TaskEvalFigs{Task: t.Env + "/" + t.Name, Best: math.Inf(-1)}
		var sum float64
		var cnt int
		for i := 0; i < k; i++ {
			n := ti*k + i
			if !valid[n] {
				continue
			}
			tf.Gains = append(tf.Gains, gains[n])
			total++
			if gains[n] < 0 {
				neg++
			}
			if i < avgAt {
				sum += gains[n]
				cnt++
			}
			if i < bestAt {
				tf.Best = max(tf.Best, gains[n])
			}
		}
		if cnt > 0 {
			tf.Avg = sum / float64(cnt)
		}
		if math.IsInf(tf.Best, -1) {
			tf.Best = 0
		}
		if tf.Best > 0 {
			beats++
		}
		fig.Avg += tf.Avg / float64(len(tasks))
		fig.Best += tf.Best / float64(len(tasks))
		fig.Tasks = append(fig.Tasks, tf)
		r.progress.step(fmt.Sprintf("%s Avg@%d %.4g Best@%d %.4g", tf.Task, avgAt, tf.Avg, bestAt, tf.Best))
	}
	if total > 0 {
		fig.Negative = float64(neg) / float64(total)
	}
	fig.BeatsBase = float64(beats) / float64(len(tasks))
	return r.j.Commit(journal.KindEval, ph.Name, fig)
}
