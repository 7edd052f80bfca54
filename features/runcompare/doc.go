// Package runcompare sets what a run measured beside what the estimate of
// its plan predicted, figure by figure, in the estimate's own names
// (totals.real_runs, roles.NAME.calls, loops.NAME.steps, ...), and says
// whether each measured figure lies inside the estimate's [low, high].
// The report and status commands show the rows; the contract test checks
// them.
package runcompare
