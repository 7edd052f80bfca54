// Package pairs reads the verified parent/child pairs of finished runs
// from their journals and labels them, for a critic's training and
// benchmark data (assay export pairs; the schema is in docs/pairs.md).
//
// A pair is a candidate made against a parent program (an evolution
// loop's child, a parent-conditioned RL candidate) whose real run
// finished with a metric, and whose parent's metric is known: the task's
// baseline for the reference configuration, else the parent's own
// finished run. The runtime journals each such candidate's lineage with
// its reservation (journal.Lineage). Each pair gets the 3-way label of
// its metrics and, when its parent keeps one, the paper's parent-specific
// 5-way label (base/critic): a parent's children are every feasible
// executed child of that parent in the same run.
//
// Read collects and labels; Split marks a held-out set of tasks; Balance
// keeps at most N pairs of each class, chosen by a seed. Next phase: the
// command line writes the pairs as JSON lines; a critic evaluation reads
// them back with ReadJSONL.
package pairs
