// Package diff is Assay's semantic diff: it compares two specs by meaning,
// not by text. Diff reports field changes by path on the spec model
// (spec.Tree: "calibration.after_steps: [16, 40, 64] -> [16, 40]", added and
// removed blocks), and how the compiled plans' estimates moved: every total
// (real runs, GPU-hours, dollars, LLM calls, wall hours), LLM calls per role
// and the steps each loop gets, as absolute and relative deltas of the
// expected value, with low and high where they differ. Two specs that differ
// only in formatting, comments or front end (HCL or CUE) have equal trees and
// equal plan hashes, and Diff says "no change".
//
// Thresholds (ParseThreshold: "usd=+10%", "real_runs=+50") mark deltas that
// cross them; commands turn a crossed --fail-above into a distinct exit code.
// Renderers write the result for terminals (WriteHuman), scripts (WriteJSON)
// and pull-request comments (WriteMarkdown).
//
// Diff sits after the compiler and the estimator (it calls compiler.Compile
// and estimate.Estimate); the next phase is a command, `assay diff`.
package diff
