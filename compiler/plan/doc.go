// Package plan is the compiled execution plan: pure, deterministic,
// serialisable data, produced by package compiler and consumed by the
// estimator and the runtime. It imports nothing of Assay but lang/diag, so
// the runtime can depend on it without depending on the compiler.
//
// A plan carries a FormatVersion from day one and a content Hash computed
// over its meaning only (source ranges excluded), so reformatting a spec or
// editing its comments leaves the hash unchanged, and an HCL spec and its CUE
// twin hash the same.
package plan
