// Command gendocs writes docs/language.md, the language reference, from the
// sources of truth: the spec model's schema (spec.Describe), the compiler's
// defaults and diagnostic codes, the formula language's functions and name
// tables, and the stdlib functions. Run it from the repository root:
//
//	go run ./internal/gendocs
//
// Its test fails when docs/language.md differs from what it would write, so
// the reference cannot drift from the code.
package main

//go:generate go run . -o ../../docs/language.md
