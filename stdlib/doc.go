// Package stdlib is Assay's standard library: presets (loop algorithms and
// price tables, kept as JSON data files so every front end shares them) and
// the unit functions that specs call, such as hours("90m") or
// gpu_hours(8, 5.625).
//
// Presets are merged into a spec by ApplyPresets, the compiler's first pass:
// a block that names a preset gets every field it left unset from the preset,
// and the spec's own values always win. Functions are plain Go functions
// listed in Functions; each front end wraps them in its own calling
// convention (lang/hcl as cty functions) and the docs generator reads the
// same table.
//
// stdlib imports only the spec model and diagnostics; front ends and the
// compiler import it, never the other way round. The next phase is the
// compiler (package compiler), which checks and lowers the merged spec.
package stdlib
