package rehearse

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/plugins/sim"
)

// criticPairs gives a rehearsal's critic trainings and critic
// evaluations pairs from the simulated world: a file of synthetic
// labelled pairs in dir, as many as each reads (a training's SFT examples
// and one GRPO step's, an evaluation's priced examples), and returns the
// plan with every one reading its file. The plan is copied; p is not
// changed. A plan with neither is p itself.
func criticPairs(p *plan.Plan, v *plan.Variant, dir string, seed int64) (*plan.Plan, error) {
	reads := false
	for _, ph := range v.Phases {
		reads = reads || ph.CriticEval != nil || ph.CriticTraining != nil
	}
	if !reads {
		return p, nil
	}
	var tasks []plan.TaskRef
	for _, e := range v.Envs {
		for _, t := range e.Tasks {
			tasks = append(tasks, plan.TaskRef{Env: e.Name, Task: t.Name})
		}
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("critic pairs: the plan has no task to make pairs of")
	}
	nv := *v
	nv.Phases = nil
	for _, ph := range v.Phases {
		if ct := ph.CriticTraining; ct != nil {
			n := ct.Examples + 1
			if ct.GRPO != nil {
				n = ct.Examples + ct.GRPO.Batch
			}
			path := filepath.Join(dir, fmt.Sprintf("pairs-%s-%d.jsonl", ct.Name, seed))
			if err := writeSimPairs(path, tasks, n, ct.Split, ct.Labels == "5way", ct.Name, seed, balanced(ct)); err != nil {
				return nil, err
			}
			c, q := *ct, *ph
			c.Pairs = path
			q.CriticTraining = &c
			ph = &q
		}
		if ce := ph.CriticEval; ce != nil {
			// Every pair has a 5-way label, so a 5-way critic is scored
			// on each too.
			split := ce.Split
			if split == "all" {
				split = "holdout"
			}
			path := filepath.Join(dir, fmt.Sprintf("pairs-%s-%d.jsonl", ph.Name, seed))
			if err := writeSimPairs(path, tasks, ce.Examples, split, true, ph.Name, seed, nil); err != nil {
				return nil, err
			}
			c, q := *ce, *ph
			c.Data, c.Source = path, diag.Range{}
			q.CriticEval = &c
			ph = &q
		}
		nv.Phases = append(nv.Phases, ph)
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

// balanced is, for a training whose GRPO pool is class-balanced, the
// classes its GRPO pairs take in turn, so that the pool holds each.
func balanced(ct *plan.CriticTraining) func(i int) string {
	if ct.GRPO == nil || ct.GRPO.Balance == nil {
		return nil
	}
	b := ct.GRPO.Balance
	return func(i int) string {
		if i < ct.Examples {
			return ""
		}
		return b.Classes[(i-ct.Examples)%len(b.Classes)]
	}
}

// writeSimPairs writes n synthetic pairs of split to path, drawn for name
// and seed: each has a 5-way label and its 3-way direction when labels5,
// else a 3-way label drawn alone. class, when set, fixes pair i's class
// (a 3-way or 5-way label; "": drawn).
func writeSimPairs(path string, tasks []plan.TaskRef, n int, split string, labels5 bool, name string, seed int64, class func(int) string) error {
	labels3 := []string{"improve", "tie", "lose"}
	l5s := []string{"BigWin", "MediumWin", "SmallWin", "Tie", "Lose"}
	dir3 := map[string]string{"BigWin": "improve", "MediumWin": "improve", "SmallWin": "improve", "Tie": "tie", "Lose": "lose"}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for i := 0; i < n; i++ {
		t := tasks[i%len(tasks)]
		l5 := l5s[pick(seed, name, i)%uint64(len(l5s))]
		l3 := dir3[l5]
		if !labels5 {
			l3 = labels3[pick(seed, name, i)%uint64(len(labels3))]
		}
		if class != nil {
			l5, l3 = withClass(class(i), l5, l3, l5s, dir3)
		}
		child := map[string]any{"id": fmt.Sprintf("pair-%d", i), "text": fmt.Sprintf("idea %d", i), "edits": map[string]string{"lr": fmt.Sprint(i)}}
		line := map[string]any{"env": t.Env, "task": t.Task, "parent": map[string]any{"id": "base"}, "child": child, "label3": l3, "label5": l5, "split": split}
		if err := enc.Encode(line); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// withClass is a pair's labels l5 and l3 given its class c: a 5-way
// class is l5; a 3-way one is l3, with the next 5-way label of that
// direction; "" leaves them.
func withClass(c, l5, l3 string, l5s []string, dir3 map[string]string) (string, string) {
	switch {
	case dir3[c] != "":
		return c, dir3[c]
	case c == "":
		return l5, l3
	}
	for range l5s {
		if dir3[l5] == c {
			break
		}
		l5 = l5s[(slices.Index(l5s, l5)+1)%len(l5s)]
	}
	return l5, c
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
	for _, ph := range v.Phases {
		ct := ph.CriticTraining
		if ct == nil {
			continue
		}
		for _, u := range []*plan.CriticUpdate{ct.SFT, ct.GRPO} {
			if u != nil {
				w.UpdateHours["critic_training/"+ct.Name+"/"+u.Algorithm] = u.Hours
			}
		}
	}
}
