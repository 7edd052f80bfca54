// Package load reads a spec from disk with the front end its name calls for:
// a .hcl file goes to lang/hcl, a .cue file or a directory to lang/cue. It is
// the only package that imports both front ends, so commands and tools load
// specs through it and never pick a front end themselves.
//
// Next phase: the compiler (package compiler) checks the loaded spec.Spec
// and lowers it to a plan.
package load
