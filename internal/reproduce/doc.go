// Command reproduce runs the papers' ablations at laptop scale and writes
// their results to docs/reproducing.md:
//
//	go run ./internal/reproduce [-seeds 3] [-out docs/reproducing.md]
//
// -only TEXT runs only the experiments whose title holds TEXT: their
// tables replace theirs in the generated section, each noting that it was
// rerun alone and in how long, and the other tables stay as they were.
// For a quick check, -train-steps shortens every tinylm run (write the
// tables elsewhere with -out).
//
// The experiments are the specs of specs/laptop (the full-scale ablations
// of specs/ in miniature), each run for real on the built-in tinylm
// trainer and offline LLM, served in process, once per seed. Each
// experiment becomes a table of the mean and the sample standard deviation
// over seeds of its figures (computed by base/stats, as assay compare
// computes them for a group of seeds): the evaluation's Avg@k, Best@k and
// Beats-Base share, the world model's held-out figures, steps and
// candidates, the critic's AUROC and error recall, a critic_eval's static
// figures, evolution's final best gain and real runs, the updates of a
// continual critic, and the held-out Dir-3 of the offline critic in the
// state the run left it (read from the run's journal). Only the section between the generated markers of the output
// file is rewritten; the text around it is kept.
package main
