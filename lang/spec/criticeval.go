package spec

import "github.com/assay-lang/assay/lang/diag"

// CriticEval is a static critic evaluation: the named critics judge every
// pair of a labelled pairs file (the schema assay export pairs writes),
// each vote one call of the critic's role, and are scored against the
// pairs' labels, as the critics paper's ML-Idea-Critic-Bench does.
type CriticEval struct {
	Name      string        `json:"-"`
	NameRange diag.Range    `json:"-"`
	Data      Val[string]   `assay:"data" doc:"labelled pairs file (JSON lines in the schema of assay export pairs, docs/pairs.md, at most 64 MiB), relative to the file that writes it; read when the phase starts, so it may be supplied after the spec is written (validate reads it when it exists)"`
	Critics   Val[[]string] `assay:"critics" doc:"names of the critic blocks evaluated, side by side (default: every critic of the spec)"`
	Split     Val[string]   `assay:"split" enum:"train|holdout|all" doc:"the pairs of one split are judged (default all)"`
	// MinImproving is critic_training's filter, for a bench drawn from
	// the same pool.
	MinImproving Val[int]       `assay:"min_improving_children" doc:"pairs whose parent has fewer children labelled improve in the file (label3, children of the same parent in the same run) are left out before the split and limit are taken, as the critics paper filters the pool its benchmark is held out of (3); default 0: every pair"`
	Limit        Val[int]       `assay:"limit" doc:"the pairs judged and priced: the split's first N (required; the file must hold at least N pairs of the split, e.g. its wc -l for split all)"`
	K            Val[[]int]     `assay:"k" doc:"numbers of votes whose majority is scored, each from 1 to every evaluated critic's votes (default: each critic's votes)"`
	Thresholds   Val[[]float64] `assay:"thresholds" doc:"routing thresholds T in [0, 1] at which error recall and routed share are reported (default [0.1, 0.25, 0.5])"`
	Range        diag.Range     `json:"-"`
}
