// Package prompt holds the prompt templates of the LLM roles: Assay's
// default templates (prompts/, versioned), the variables each role kind's
// templates read (ProposeVars, CritiqueVars, ...), parsing and checking a
// template against them (Parse, CheckTemplate) and rendering the chat
// (Render), bounded in size. Templates are Go text/template with no
// function that reads a file or the environment or runs a program.
//
// The compiler checks a spec's templates and puts them in the plan; the
// runtime fills the variables from a call's request (plugins/payload
// NewVars) and renders the messages it sends. The package is a leaf: the
// standard library only, so both may import it.
package prompt
