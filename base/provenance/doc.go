// Package provenance finds what a run of an experiment kept in git came
// from: the commit of the spec's repository and whether the spec's files
// differ from it. It runs the git command with fixed arguments (no shell),
// and treats a spec outside a repository, or a machine without git, as
// having no commit rather than as an error.
package provenance
