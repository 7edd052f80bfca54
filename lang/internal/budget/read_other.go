//go:build !unix

package budget

// openNonBlock is zero where the platform has no such flag; ReadFile still
// refuses named pipes by their mode before opening.
const openNonBlock = 0
