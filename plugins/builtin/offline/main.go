// Command offline is Assay's built-in LLM plugin: an embedded model for
// every role (package model), so experiments run with no network or API
// key. The host starts it; run by hand it only prints a note and exits.
package main

import (
	"assay/plugins/builtin/offline/model"
	"assay/plugins/sdk"
)

func main() { sdk.ServeLLM(model.Model{}) }
