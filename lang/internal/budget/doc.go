// Package budget bounds what one spec may cost a front end to read. A spec
// is a program (HCL for-expressions and locals, CUE comprehensions and
// builtins), so a few lines can ask for billions of values; neither HCL nor
// CUE can cancel an evaluation, so the front ends check the source's size
// and nesting before parsing, and run evaluation under Run, which gives up
// after a deadline or a memory ceiling and says so.
//
// ReadFile is how every front end reads a spec or variable file, through
// base/boundedfile: it refuses what is not a regular file before opening
// it, and reads at most one byte past the size limit, so /dev/zero, a
// named pipe or a huge file is refused at once instead of being read whole.
//
// The compiler sees only the decoded spec model; it bounds the sizes a spec
// asks for (task counts and other numbers) itself.
package budget
