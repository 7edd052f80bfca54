// Package report renders a run's monitoring figures (runtime.Report) as a
// self-contained HTML page — inline SVG plots, inline CSS, no scripts and
// no external assets, so the file can be mailed or archived as is — and as
// JSON with the same figures.
//
// Plots: reward per step (RL loops) or best gain per round (evolution), the
// world model's predicted-vs-real gap at each calibration round, and budget
// burn in real runs and dollars with the caps drawn; then the best
// proposals with their real gains and the evaluation. Each plot's legend
// stands in a column beside its plot area, never over the data; money is
// shown in dollars, and a critic's measured routed share beside the
// expected_routed the plan assumed.
//
// Next phase: none; the report command in cmd/assay writes the file.
package report
