package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// MaxCriticEvalDataBytes is the most a critic evaluation's pairs file may
// hold.
const MaxCriticEvalDataBytes = 64 << 20

const (
	codeCriticEvalData = "E_CRITIC_EVAL_DATA"
	codeCriticPairs    = "E_CRITIC_PAIRS"
	codePairsMissing   = "W_PAIRS_MISSING"
)

// checkPairFiles reads, for diagnostics only, the pairs file of each
// critic_eval and critic_training block that exists, relative to the file
// that names it, and refuses what the phase would refuse when it starts:
// a file that is not a pairs file, or one with fewer pairs of the split
// than the block judges or trains on. Neither the spec nor the plan keeps
// anything of the file: the phase reads it when it starts, so a file the
// user supplies later (a missing one is a warning) is read then.
func (r *resolver) checkPairFiles(s *spec.Spec) diag.Diagnostics {
	if s == nil {
		return nil
	}
	var ds diag.Diagnostics
	for _, ce := range s.CriticEvals {
		if !ce.Data.Set {
			continue
		}
		ps, d := r.readPairFile(ce.Data, "critic_eval "+quote(ce.Name), codeCriticEvalData, MaxCriticEvalDataBytes)
		if d != nil {
			ds = append(ds, d)
			continue
		}
		if ps == nil || !ce.Limit.Set || ce.Limit.V < 1 {
			continue
		}
		ps, _ = critic.KeepParents(ps, ce.MinImproving.V)
		split := "all"
		if ce.Split.Set {
			split = ce.Split.V
		}
		if n := countPairs(ps, split, ""); n < ce.Limit.V {
			ds = append(ds, diag.Errorf(codeCriticEvalData, ce.Limit.Range, "critic_eval %q: %s holds %d pairs of split %s%s, and limit judges %d", ce.Name, ce.Data.V, n, split, kept(ce.MinImproving.V), ce.Limit.V).
				WithDetail("supply a file with at least %d pairs of split %s (assay export pairs), or set limit to the pairs it holds (split = \"all\" judges every pair)", ce.Limit.V, split))
		}
	}
	for _, ct := range s.CriticTrainings {
		ds = append(ds, r.checkTrainingPairs(s, ct)...)
	}
	return ds
}

// checkTrainingPairs is checkPairFiles for a critic training: the split's
// pairs labelled in its critic's space must be at least its examples (at
// least one), as the phase requires.
func (r *resolver) checkTrainingPairs(s *spec.Spec, ct *spec.CriticTraining) diag.Diagnostics {
	if !ct.Pairs.Set {
		return nil
	}
	ps, d := r.readPairFile(ct.Pairs, "critic_training "+quote(ct.Name), codeCriticPairs, -1)
	if d != nil {
		return diag.Diagnostics{d}
	}
	if ps == nil {
		return nil
	}
	// The phase drops the parents with few improving children first.
	ps, _ = critic.KeepParents(ps, ct.MinImproving.V)
	labels := ""
	for _, c := range s.Critics {
		if c.Name == ct.Critic.Name {
			labels = c.Labels.V
		}
	}
	need := 1
	if ct.SFT != nil && ct.Examples.V > 1 {
		need = ct.Examples.V
	}
	split := "all"
	if ct.Split.Set && ct.Split.V != "" {
		split = ct.Split.V
	}
	if n := countPairs(ps, split, labels); n < need {
		at := ct.Pairs.Range
		if ct.Examples.Set {
			at = ct.Examples.Range
		}
		return diag.Diagnostics{diag.Errorf(codeCriticPairs, at, "critic_training %q: %s holds %d pairs of split %s labelled in %s%s, and the training needs at least %d", ct.Name, ct.Pairs.V, n, split, orDefault(labels, "3way"), kept(ct.MinImproving.V), need).
			WithDetail("supply a file with more such pairs (assay export pairs; --labelled-only for 5-way labels), or set examples to at most %d", n)}
	}
	if ct.GRPO != nil && ct.GRPO.Balance.Set {
		if ct.SFT == nil {
			need = 0
		}
		return checkBalancedPool(ct, grpoPool(ps, split, labels, need))
	}
	return nil
}

// kept says which pairs were counted when min_improving_children drops
// some ("" when it drops none).
func kept(minImproving int) string {
	if minImproving <= 0 {
		return ""
	}
	return fmt.Sprintf(" whose parent has at least %d improving children", minImproving)
}

// grpoPool is a critic training's GRPO pool, as the phase takes it: the
// split's pairs labelled in space after the first examples, or all of
// them when the SFT takes every one.
func grpoPool(ps []critic.Pair, split, space string, examples int) []critic.Pair {
	var in []critic.Pair
	for _, p := range ps {
		if (split == "all" || p.Split == split) && (space != critic.Space5 || p.Label5 != "") {
			in = append(in, p)
		}
	}
	if len(in) > examples {
		return in[examples:]
	}
	return in
}

// checkBalancedPool refuses a grpo.balance class with no pair in the pool,
// as the run does before its first phase. A class of neither space is the
// compiler's to refuse.
func checkBalancedPool(ct *spec.CriticTraining, pool []critic.Pair) diag.Diagnostics {
	n := map[string]int{}
	for _, p := range pool {
		n[p.Label3]++
		if p.Label5 != "" {
			n[p.Label5]++
		}
	}
	var ds diag.Diagnostics
	for _, c := range ct.GRPO.Balance.V {
		if n[c] == 0 && critic.Direction(c) != "" {
			ds = append(ds, diag.Errorf(codeCriticPairs, ct.GRPO.Balance.Range, "critic_training %q: grpo.balance draws class %q, and the GRPO pool (%d pairs of %s after the SFT's) has none", ct.Name, c, len(pool), ct.Pairs.V).
				WithDetail("remove %q from balance, or supply pairs of that class (assay export pairs)", c))
		}
	}
	return ds
}

// readPairFile reads the pairs file v names (at most limit bytes when
// limit is above 0). It returns no pairs and no diagnostic for a file that
// does not exist yet, but a warning: the phase refuses it unless it
// exists by then.
func (r *resolver) readPairFile(v spec.Val[string], what, code string, limit int) ([]critic.Pair, *diag.Diagnostic) {
	path := v.V
	if !filepath.IsAbs(path) && v.Range.Filename != "" {
		path = filepath.Join(filepath.Dir(v.Range.Filename), path)
	}
	var rd io.Reader
	if b, ok := r.overlay(path); ok {
		rd = bytes.NewReader(b)
	} else {
		var err error
		if rd, err = openPairFile(path, limit); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, diag.Warnf(codePairsMissing, v.Range, "%s: pairs file %s does not exist: the run will refuse it unless it exists when the phase starts", what, v.V).
					WithDetail("supply the file (assay export pairs writes one, docs/pairs.md) relative to the file that names it, before the run reaches the phase")
			}
			return nil, diag.Errorf(code, v.Range, "%s: cannot read pairs file %s: %v", what, v.V, unwrapPathError(err)).
				WithDetail("The pairs file (docs/pairs.md) is relative to the file that names it; write one with assay export pairs.")
		}
		if c, ok := rd.(io.Closer); ok {
			defer c.Close()
		}
	}
	ps, err := critic.ReadPairs(rd)
	if err != nil {
		return nil, diag.Errorf(code, v.Range, "%s: pairs file %s: %v", what, v.V, err).
			WithDetail("Each line is one pair in the schema of assay export pairs (docs/pairs.md), with a label3 of improve, tie or lose.")
	}
	if ps == nil {
		ps = []critic.Pair{}
	}
	return ps, nil
}

// openPairFile opens a pairs file: read whole within limit bytes when
// limit is above 0, else streamed (critic.ReadPairs bounds its pairs and
// lines).
func openPairFile(path string, limit int) (io.Reader, error) {
	if limit > 0 {
		b, err := budget.ReadFile(path, limit)
		if err != nil {
			return nil, err
		}
		return bytes.NewReader(b), nil
	}
	// Stat first: opening a FIFO could block.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &budget.NotRegularError{Path: path, Mode: st.Mode()}
	}
	return os.Open(path)
}

// countPairs counts the pairs of split ("all": every one) that have a
// label in space ("" or 3way: every pair has a 3-way label).
func countPairs(ps []critic.Pair, split, space string) int {
	n := 0
	for _, p := range ps {
		if split != "all" && p.Split != split {
			continue
		}
		if space == "5way" && p.Label5 == "" {
			continue
		}
		n++
	}
	return n
}

func quote(s string) string { return `"` + s + `"` }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
