// Package spec is Assay's syntax-neutral spec model: what an experiment file
// says, after a front end (lang/hcl, lang/cue) has parsed it and evaluated its
// variables and expressions, but before any checking or lowering.
//
// Every field remembers where it came from (a diag.Range), so the compiler can
// point at file:line:col. Fields are described once, by struct tags, and that
// description (see Describe) drives both front ends, the JSON Schema, the
// language reference in docs/, sweeps (paths into the model) and the semantic
// diff, so none of them can drift from the others.
//
// Struct tags:
//
//	assay:"name"          attribute or block name as users write it
//	assay:"name,block"    a nested block (pointer to struct), at most one
//	assay:"name,blocks"   repeated labelled blocks (slice of pointers to struct
//	                      with a Name field); the label is the Name
//	doc:"..."             one-line description for docs and editors
//	enum:"a|b|c"          allowed values of a string field
//	unit:"..."            unit shown in docs (e.g. "GPU-hours", "$/GPU-hour")
//
// Merge gives the meaning of `extends`: a spec's attributes and blocks merged
// over its base's, generically over Describe(); lang/load applies it.
//
// The next phase is the compiler (package compiler), which resolves
// references, checks types, ranges and domain rules, and lowers to a plan.
package spec
