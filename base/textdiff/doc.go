// Package textdiff renders the difference between two texts as a unified
// diff (diff -u), for `assay fmt -diff`. Texts are compared line by line
// with a longest-common-subsequence table, which is exact and fast enough
// for spec files; very large inputs fall back to one hunk that replaces
// everything.
//
// It has no next phase: commands print its output.
package textdiff
