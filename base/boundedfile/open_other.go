//go:build !unix

package boundedfile

// openNonBlock is zero where the platform has no such flag; Read still
// refuses named pipes by their mode before opening.
const openNonBlock = 0
