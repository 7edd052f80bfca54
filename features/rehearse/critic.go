package rehearse

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/sim"
)

// criticPairs gives a rehearsal's critic trainings pairs from the
// simulated world: a file of synthetic labelled pairs in dir, as many as
// each training reads (its SFT examples and one GRPO step's), and returns
// the plan with every training reading its file. The plan is copied; p
// is not changed. A plan without critic training is p itself.
func criticPairs(p *plan.Plan, v *plan.Variant, dir string, seed int64) (*plan.Plan, error) {
	if len(v.CriticTrainings) == 0 {
		return p, nil
	}
	var tasks []plan.TaskRef
	for _, e := range v.Envs {
		for _, t := range e.Tasks {
			tasks = append(tasks, plan.TaskRef{Env: e.Name, Task: t.Name})
		}
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("critic training: the plan has no task to make pairs of")
	}
	nv := *v
	nv.CriticTrainings = nil
	labels3 := []string{"improve", "tie", "lose"}
	labels5 := []string{"BigWin", "MediumWin", "SmallWin", "Tie", "Lose"}
	dir3 := map[string]string{"BigWin": "improve", "MediumWin": "improve", "SmallWin": "improve", "Tie": "tie", "Lose": "lose"}
	for _, ct := range v.CriticTrainings {
		n := ct.Examples + 1
		if ct.GRPO != nil {
			n = ct.Examples + ct.GRPO.Batch
		}
		path := filepath.Join(dir, fmt.Sprintf("pairs-%s-%d.jsonl", ct.Name, seed))
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		enc := json.NewEncoder(f)
		for i := 0; i < n; i++ {
			t := tasks[i%len(tasks)]
			l5 := labels5[pick(seed, ct.Name, i)%uint64(len(labels5))]
			l3 := dir3[l5]
			if ct.Labels != "5way" {
				l3 = labels3[pick(seed, ct.Name, i)%uint64(len(labels3))]
			}
			child := map[string]any{"id": fmt.Sprintf("pair-%d", i), "text": fmt.Sprintf("idea %d", i), "edits": map[string]string{"lr": fmt.Sprint(i)}}
			line := map[string]any{"env": t.Env, "task": t.Task, "parent": map[string]any{"id": "base"}, "child": child, "label3": l3, "label5": l5, "split": ct.Split}
			if err := enc.Encode(line); err != nil {
				f.Close()
				return nil, err
			}
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		c := *ct
		c.Pairs = path
		nv.CriticTrainings = append(nv.CriticTrainings, &c)
	}
	np := *p
	np.Variants = nil
	for _, x := range p.Variants {
		if x == v {
			x = &nv
		}
		np.Variants = append(np.Variants, x)
	}
	return &np, nil
}

// pick is a draw for pair i of a training, the same for a seed.
func pick(seed int64, name string, i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d", seed, name, i)
	return h.Sum64()
}

// criticUpdateHours adds each critic training's update hours to the
// world's, by the run id prefix its updates take.
func criticUpdateHours(w *sim.World, v *plan.Variant) {
	for _, ct := range v.CriticTrainings {
		for _, u := range []*plan.CriticUpdate{ct.SFT, ct.GRPO} {
			if u != nil {
				w.UpdateHours["critic_training/"+ct.Name+"/"+u.Algorithm] = u.Hours
			}
		}
	}
}
