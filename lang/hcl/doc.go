// Package hcl is Assay's HCL front end: it parses a spec file written in
// HCL, evaluates its variables, locals, expressions and functions, expands
// dynamic blocks, and decodes the result into the syntax-neutral model of
// lang/spec.
//
// Decoding is generic: the block and attribute names, types and enums come
// from spec.Describe(), so adding a field to the model adds it here with no
// change to this package. Every value keeps its source range, so later passes
// can point at file:line:col. References such as `predictor = role.rwm` are
// read as traversals, not evaluated; the compiler checks that they exist.
//
// The package also formats HCL canonically (Format, for `assay fmt`) and
// renders a model back as HCL (Write, for `assay convert`).
//
// Presets are not applied here: the compiler's first pass
// (stdlib.ApplyPresets) does that for every front end alike. The next phase
// is the compiler (package compiler).
package hcl
