// Package cue is Assay's CUE front end. LoadFile reads a .cue file or a
// directory holding one CUE package, evaluates it with CUE, unifies the result
// with the #Spec definition of stdlib/cue/assay.cue (so CUE's own constraint
// checking applies, and `cue vet` works on specs outside Assay), and decodes
// it into the syntax-neutral model of lang/spec. Write renders a model back as
// canonical CUE, for `assay convert`.
//
// The shape mirrors HCL: single blocks are CUE structs, labelled blocks are
// structs keyed by label (environment: olmo3: {...}), references are strings
// "role.rwm" or CUE references to the block itself (predictor: role.rwm), and
// formulas are strings. CUE resolves a name to the nearest enclosing field, so
// inside a block a reference whose kind equals a field of that block (role in
// a critic, reward in a loop, loop in calibration) means the field itself:
// write the string "role.critic" there. The decoder is driven by spec.Describe(), as the HCL
// decoder is, and the CUE schema is generated from the same description
// (GenerateSchema), so the two front ends accept exactly the same fields.
//
// Variables: a spec declares them in a `variable` struct, as in HCL
// (variable: steps: {type: "number", default: 96}), and uses them as
// var.NAME. Assay provides the `var` struct itself: each variable's value is
// its default, overridden by -var-file (CUE or JSON files of NAME: VALUE) and
// then -var NAME=VALUE. A spec must not assign var fields itself.
//
// Diagnostics: CUE syntax errors have code cue_syntax and CUE evaluation or
// constraint errors cue_constraint, at the CUE position; checks that are
// Assay's own (unknown fields, types, enums, references, variables) use the
// same codes as the HCL front end.
//
// Limits: CUE evaluation cannot be interrupted, so a load is bounded
// (lang/internal/budget): the source's size, chained labels, nesting and
// operator count are checked before evaluation; the builtins that build a
// value of any size in one allocation (strings.Replace, strings.Repeat,
// strings.Join, list.Repeat, multiplied string or list literals) are refused;
// and evaluation runs under a deadline (Options.Timeout) and a memory
// ceiling. Past a bound the load reports E_TOO_LARGE or E_TOO_COMPLEX.
//
// The next phase is the compiler (package compiler), which applies presets,
// resolves references, checks and lowers the spec to a plan.
package cue
