// Package compiler turns a spec model (package lang/spec) into an execution
// plan (package compiler/plan).
//
// Compile runs an ordered list of named passes, in the manner of OPA's
// ast.NewCompiler: presets, defaults, resolve, sweep, check, domain, lower,
// hash. Each pass appends diagnostics instead of stopping, so a user sees
// every problem of a spec at once; the result is sorted and deduplicated.
// Later passes that need a sound spec (lowering) are skipped once errors have
// been found. CompilePartial still lowers a spec whose every error leaves it
// sound (a budget its fixed runs exceed, a field that takes no effect) and
// returns that plan beside the errors, as Terraform returns an errored plan,
// for commands and editors to show what compiled; it has no hash and never
// runs. Lowering has one file per plan phase kind (lower_*.go), mirroring
// the runtime's phase types.
//
// Lowering makes every real run visible before any runs: besides the seed,
// loop, calibration and evaluation phases, the plan opens with a baselines
// phase (plan.PhaseBaselines) of one real run of the unedited reference
// configuration per task that needs its baseline b_e measured: a task of a
// split some phase runs for real (train with seed records, RL with real or
// screened rewards, calibration or evolution on train; holdout with an
// evaluation on holdout; generally the split of every such phase, and of an
// RL loop whose reward formula reads baseline) that declares no baseline,
// nor its environment, and whose environment has no benchmark plugin to
// supply one. These runs make no LLM call; they count in E_BUDGET_FIT, come
// out of the real-run budget first when until_budget solves for steps, and
// appear in the estimate. The runtime runs exactly these and no other.
//
// Every default the compiler fills is listed in Defaults, which the docs
// print; a required field without a documented default is an E_MISSING error
// saying what to write. Every diagnostic code is listed in Codes.
//
// The next phases are the estimator (package compiler/estimate), which prices
// a plan, and the runtime (package runtime), which executes it.
package compiler
