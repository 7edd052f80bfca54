// Package diag holds Assay's diagnostics: user-facing errors and warnings with a
// stable code, a source range (file:line:col) and a hint on what to do.
//
// Every package that reads user input returns (result, diag.Diagnostics) and
// appends instead of stopping at the first error, so a user sees all the
// problems of a file at once. Programmer errors may panic; user errors never do.
package diag
