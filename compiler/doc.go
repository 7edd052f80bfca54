// Package compiler turns a spec model (package lang/spec) into an execution
// plan (package compiler/plan).
//
// Compile runs an ordered list of named passes, in the manner of OPA's
// ast.NewCompiler: presets, defaults, resolve, sweep, check, domain, lower,
// hash. Each pass appends diagnostics instead of stopping, so a user sees
// every problem of a spec at once; the result is sorted and deduplicated.
// Later passes that need a sound spec (lowering) are skipped once errors have
// been found.
//
// Every default the compiler fills is listed in Defaults, which the docs
// print; a required field without a documented default is an E_MISSING error
// saying what to write. Every diagnostic code is listed in Codes.
//
// The next phases are the estimator (package compiler/estimate), which prices
// a plan, and the runtime (package runtime), which executes it.
package compiler
