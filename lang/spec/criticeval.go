package spec

import "github.com/assay-lang/assay/lang/diag"

// CriticEval is a static critic evaluation: the named critics judge every
// pair of a labelled pairs file (the schema assay export pairs writes),
// each vote one call of the critic's role, and are scored against the
// pairs' labels, as the critics paper's ML-Idea-Critic-Bench does.
type CriticEval struct {
	Name       string         `json:"-"`
	NameRange  diag.Range     `json:"-"`
	Data       Val[string]    `assay:"data" doc:"labelled pairs file (JSON lines in the schema of assay export pairs, docs/pairs.md), relative to the file that writes it; read when the spec is loaded, and its digest is part of the plan"`
	Critics    Val[[]string]  `assay:"critics" doc:"names of the critic blocks evaluated, side by side (default: every critic of the spec)"`
	Split      Val[string]    `assay:"split" enum:"train|holdout|all" doc:"the pairs of one split are judged (default all)"`
	Limit      Val[int]       `assay:"limit" doc:"judge only the first N pairs of the split (default 0: all)"`
	K          Val[[]int]     `assay:"k" doc:"numbers of votes whose majority is scored, each from 1 to every evaluated critic's votes (default: each critic's votes)"`
	Thresholds Val[[]float64] `assay:"thresholds" doc:"routing thresholds T in [0, 1] at which error recall and routed share are reported (default [0.1, 0.25, 0.5])"`
	Range      diag.Range     `json:"-"`

	// What the loader (lang/load) read of the data file: where, its
	// digest, and how many pairs each split has. DataRead is set once it
	// has read it.
	DataPath   string         `json:"-"`
	DataDigest string         `json:"-"`
	DataSplits map[string]int `json:"-"`
	DataRead   bool           `json:"-"`
}
