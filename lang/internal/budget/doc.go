// Package budget bounds what one spec may cost a front end to read. A spec
// is a program (HCL for-expressions and locals, CUE comprehensions and
// builtins), so a few lines can ask for billions of values; neither HCL nor
// CUE can cancel an evaluation, so the front ends check the source's size
// and nesting before parsing, and run evaluation under Run, which gives up
// after a deadline or a memory ceiling and says so.
//
// The next phase is the compiler, which only ever sees the decoded spec
// model and needs no such guard.
package budget
