// Command assay validates, formats, plans, prices and runs Assay experiment
// specs.
//
// Each subcommand lives in its own file with its help text and registers
// itself on rootCmd in that file's init function. Commands are thin: they
// parse arguments, call the library (lang/load, compiler, compiler/estimate,
// runtime) and render the result for people or as JSON.
//
// Exit codes: 0 success; 1 a problem with the user's input or the
// experiment (an invalid spec, a broken budget cap, a failed run); 2 a usage
// error (unknown command or flag, wrong number of arguments).
package main
