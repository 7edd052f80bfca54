// Package load reads a spec from disk with the front end its name calls for:
// a .hcl file goes to lang/hcl, a .cue file or a directory to lang/cue. It is
// the only package that imports both front ends, so commands and tools load
// specs through it and never pick a front end themselves.
//
// It also resolves `extends`: a spec that builds on another is merged over
// its base (spec.Merge), loaded recursively and in either language, with
// cycles (E_EXTENDS_CYCLE) and unreadable bases (E_EXTENDS) reported at the
// extends attribute. Because a -var may set a variable that only a base
// declares, the front ends hand unknown variable names back (UnknownVar)
// and this package reports those no file of the chain declares.
//
// Next phase: the compiler (package compiler) checks the loaded spec.Spec
// and lowers it to a plan.
package load
