package main

import "assay/plugins/sdk"

func main() {
	sdk.ServeLLM(newLLM())
}
