// Package jsonschema renders the spec model's schema (spec.Describe()) as a
// JSON Schema (draft 2020-12), for editors and for tools that produce specs
// as JSON. It describes the shape of spec.Tree: single blocks are objects,
// labelled blocks are objects keyed by label, references are "kind.name"
// strings and formulas strings. It is generated from the same description
// as the CUE schema and the docs, so none can drift from the decoders.
//
// `assay schema` prints it; nothing else depends on it.
package jsonschema
