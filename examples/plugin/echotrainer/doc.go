// Command echotrainer is an example third-party Assay trainer plugin. It
// trains nothing: the "metric" of a run is a validation loss computed from
// the proposal's knob edits, so the whole plugin protocol can be tried in
// milliseconds. A real trainer has the same shape: describe the knobs,
// start a run and return a handle at once, wait for the result.
//
// Build it and point a spec's plugin block at the binary:
//
//	go build -o ./bin/echotrainer ./examples/plugin/echotrainer
//
//	plugin "echo" {
//	  kind   = "trainer"
//	  source = "./bin/echotrainer"
//	}
package main
