// Package contract holds the test that the plan is the contract: for every
// spec in specs/ that runs on this machine, and for variants of them, either
// validation refuses the spec at a position, or a run of its plan finishes
// and every count it measured (real runs in total, per phase and per
// environment; calls per role; steps and candidates per loop) lies inside
// the estimate's [low, high].
//
// The runs use the built-in plugins' own code (the tinylm trainer and the
// offline LLM) in process, so the table stays fast; the plugin subprocess
// path is exercised by the runtime's and the command's tests.
package contract
