// Package cue embeds assay.cue, the CUE schema of Assay specs (#Spec and one
// definition per block type). The file is generated from spec.Describe() by
// lang/cue.GenerateSchema and checked for staleness by lang/cue's tests; the
// CUE front end (lang/cue) unifies every CUE spec with #Spec.
package cue

import _ "embed"

// Schema is the content of assay.cue.
//
//go:embed assay.cue
var Schema []byte

// Filename is the name diagnostics give positions inside Schema.
const Filename = "assay.cue"
