// Package report renders a run's monitoring figures (runtime.Report) as a
// self-contained HTML page — inline SVG plots, inline CSS, no scripts and
// no external assets, so the file can be mailed or archived as is — and as
// JSON with the same figures.
//
// Plots: reward per step (RL loops) or best gain per round (evolution), the
// world model's predicted-vs-real gap at each calibration round, and budget
// burn; then the best proposals with their real gains and the evaluation.
//
// Next phase: none; the report command in cmd/assay writes the file.
package report
