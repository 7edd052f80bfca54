// Package examples ships the repository's examples inside the assay
// binary, so `assay example suite DIR` can write the example task suite
// anywhere as a git repository of its own.
package examples
