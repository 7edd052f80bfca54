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
// A spec is a small program, so a load is bounded (lang/internal/budget):
// the source's size, nesting and operator count are checked before parsing,
// evaluation runs under a deadline (Options.Timeout) and a memory ceiling,
// and replace, join, format and formatlist refuse results no spec needs
// before allocating them. Past a bound the load reports E_TOO_LARGE or
// E_TOO_COMPLEX at the construct at fault, never hangs or dies.
//
// Presets are not applied here: the compiler's first pass
// (stdlib.ApplyPresets) does that for every front end alike. The next phase
// is the compiler (package compiler).
package hcl
