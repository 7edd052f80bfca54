// Package loadtest helps tests that change a spec of specs/ in a temporary
// directory: CopySpec copies the spec with every base its extends chain
// reads, in the same places relative to each other, so the copy loads
// through lang/load as the original does. Only tests import it.
package loadtest
