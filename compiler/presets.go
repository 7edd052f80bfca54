package compiler

import "github.com/assay-lang/assay/stdlib"

// applyPresets merges stdlib presets (loop presets, price tables) into the
// spec; the spec's own values always win.
func applyPresets(c *compilation) { c.add(stdlib.ApplyPresets(c.spec)) }
