// Package sourcefile reads the files a spec is made of (the spec, its
// bases, variable files) for both front ends: bounded, regular files only,
// with a positioned diagnostic for a refusal.
package sourcefile
