// Command command is Assay's built-in "command" trainer plugin: it runs a
// user's own training command once per real run, locally or on Slurm, and
// reads the metric it reports (package trainer). The host starts it; run by
// hand it only prints a note and exits.
package main

import (
	"assay/plugins/builtin/command/trainer"
	"assay/plugins/sdk"
)

func main() { sdk.ServeTrainer(trainer.New(trainer.Options{})) }
