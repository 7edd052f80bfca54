package pairs

import (
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/assay-lang/assay/base/critic"
)

// MaxLine is the longest JSON line ReadJSONL accepts.
const MaxLine = critic.MaxPairLine

// taskKey names a task across environments.
func taskKey(p Pair) string { return p.Env + "/" + p.Task }

// Split marks as "holdout" the pairs of the tasks named in holdout (as
// ENV/TASK or TASK), and of a share fraction of the remaining tasks drawn
// by seed; the rest stay "train". A named task no pair has is an error,
// so a typo does not hold out nothing. With fraction > 0 at least one
// task is drawn, and at least one task stays for training.
func Split(ps []Pair, holdout []string, fraction float64, seed int64) error {
	if math.IsNaN(fraction) || fraction < 0 || fraction >= 1 {
		return fmt.Errorf("holdout fraction %g: give a share in [0, 1)", fraction)
	}
	var tasks []string
	has := map[string]bool{}
	byName := map[string][]string{}
	for _, p := range ps {
		k := taskKey(p)
		if !has[k] {
			has[k] = true
			tasks = append(tasks, k)
			byName[p.Task] = append(byName[p.Task], k)
		}
	}
	sort.Strings(tasks)
	held := map[string]bool{}
	for _, h := range holdout {
		switch {
		case has[h]:
			held[h] = true
		case len(byName[h]) > 0:
			for _, k := range byName[h] {
				held[k] = true
			}
		default:
			return fmt.Errorf("holdout task %q: no pair has it (the tasks are %v)", h, tasks)
		}
	}
	if fraction > 0 {
		var rest []string
		for _, t := range tasks {
			if !held[t] {
				rest = append(rest, t)
			}
		}
		n := int(math.Round(fraction * float64(len(tasks))))
		n = max(n, 1) - len(held)
		n = min(n, len(rest)-1)
		g := rand.New(rand.NewPCG(uint64(seed), 0x9a1b5))
		g.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
		for _, t := range rest[:max(n, 0)] {
			held[t] = true
		}
	}
	for i := range ps {
		if held[taskKey(ps[i])] {
			ps[i].Split = "holdout"
		} else {
			ps[i].Split = "train"
		}
	}
	return nil
}

// Balance keeps at most n pairs of each class of each split, the class
// being the 3-way label (space critic.Space3) or the 5-way one
// (critic.Space5, where pairs without one are left out). Which pairs stay
// is drawn by seed, from an order that does not depend on the input's;
// the kept pairs keep their input order. It returns the kept pairs and,
// per split and class, how many there were when fewer than n.
func Balance(ps []Pair, n int, space string, seed int64) ([]Pair, []string, error) {
	if n <= 0 || n > MaxPairs {
		return nil, nil, fmt.Errorf("balance %d: give a count per class from 1 to %d", n, MaxPairs)
	}
	labels := critic.Labels(space)
	if labels == nil {
		return nil, nil, fmt.Errorf("balance by %q: use 3way or 5way", space)
	}
	type class struct{ split, label string }
	by := map[class][]int{}
	for i, p := range ps {
		l := p.Label3
		if space == critic.Space5 {
			l = p.Label5
		}
		if l == "" {
			continue
		}
		by[class{p.Split, l}] = append(by[class{p.Split, l}], i)
	}
	keep := make([]bool, len(ps))
	var short []string
	for _, split := range []string{"train", "holdout"} {
		for _, l := range labels {
			idx := by[class{split, l}]
			if len(idx) == 0 {
				continue
			}
			// Shuffle from an order set by content, so the same pairs in
			// another order balance alike.
			sort.Slice(idx, func(a, b int) bool { return pairID(ps[idx[a]]) < pairID(ps[idx[b]]) })
			h := fnv.New64a()
			fmt.Fprintf(h, "%s/%s", split, l)
			g := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
			g.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
			if len(idx) < n {
				short = append(short, fmt.Sprintf("%s %s: %d pairs, fewer than %d", split, l, len(idx), n))
			}
			for _, i := range idx[:min(n, len(idx))] {
				keep[i] = true
			}
		}
	}
	var out []Pair
	for i, p := range ps {
		if keep[i] {
			out = append(out, p)
		}
	}
	return out, short, nil
}

// pairID identifies a pair across exports of the same runs.
func pairID(p Pair) string { return p.Run + "\x00" + p.RunKey }

// WriteJSONL writes one pair per line (critic.WritePairs).
func WriteJSONL(w io.Writer, ps []Pair) error { return critic.WritePairs(w, ps) }

// ReadJSONL reads pairs in the export's schema (critic.ReadPairs).
func ReadJSONL(r io.Reader) ([]Pair, error) { return critic.ReadPairs(r) }
