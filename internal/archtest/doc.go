// Package archtest holds the tests that keep Assay's house divided. Imports
// flow one way: front ends (lang/hcl, lang/cue) -> spec model (lang/spec)
// -> compiler -> plan (compiler/plan) -> runtime -> plugins, with leaves
// (base/) below every layer, features (features/) above the compiler and
// runtime, and the command line (cmd/) on top; the repository's tools and
// checks (internal/) are imported by nothing. docs/architecture.md draws
// the house.
//
// The tests read every package's imports from source (build tags as for a
// normal build, test files excluded) and fail on an import against a home's
// rule, directly or through the packages it reaches, on an import of a
// package its owner keeps to itself, and on a package outside every home.
// Planted imports into a miniature house and into the real graph show that
// each kind of rule can fail.
//
// They also keep every function and file small enough to read: TestSizes
// fails on a function of cyclomatic complexity over 30 (counted as gocyclo
// counts it) or over 120 lines (command help text not counted), and on a
// file over 800 lines, tests included and generated files exempt; planted
// sources show each limit failing.
//
// It has no next phase; it only guards the others.
package archtest
