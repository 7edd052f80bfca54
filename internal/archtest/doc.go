// Package archtest holds a test that keeps Assay's imports flowing one way:
// front ends (lang/hcl, lang/cue) -> spec model (lang/spec) -> compiler ->
// plan (compiler/plan) -> runtime -> plugins. It reads every package's
// imports from source (build tags as for a normal build, test files
// excluded) and fails on an import against the flow.
//
// It has no next phase; it only guards the others.
package archtest
