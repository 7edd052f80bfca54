// Command tinylm is Assay's built-in trainer plugin: it trains a tiny
// character-level language model on the CPU (package model) and reports
// validation bits per byte. The host starts it; run by hand it only prints
// a note and exits.
package main

import (
	"assay/plugins/builtin/tinylm/model"
	"assay/plugins/sdk"
)

func main() { sdk.ServeTrainer(model.NewTrainer()) }
