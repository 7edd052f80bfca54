// Package gitrepo drives real git, by exec with argument lists (never a
// shell), for seed programs: it resolves a revision to a commit, adds a
// detached worktree per candidate, reads a unified diff as a model writes
// one (ExtractPatch, Apply: counts, prefixes and line ends mended, hunks
// fitted to the files, the ambiguous refused), checks its paths against
// the editable surface before `git apply` sees it, makes SEARCH/REPLACE
// edits and whole-file writes (Edit) under the same checks, checks last
// what the index will commit, whatever the change's shape (CheckChange:
// no deceiving names, no git control files, no symlinks, submodules or
// mode changes), runs a
// build argument list with a time limit and bounded output, commits the
// result with a fixed identity and date (so commit ids are reproducible),
// and points a ref at it.
//
// It is a leaf: the runtime builds candidates with it, and the command
// line passes its Check to the compiler, so validate refuses a repository
// that run would.
package gitrepo
