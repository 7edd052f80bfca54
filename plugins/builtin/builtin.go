package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/assay-lang/assay/plugins/builtin/command/trainer"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/builtin/openai"
	tinylm "github.com/assay-lang/assay/plugins/builtin/tinylm/model"
	"github.com/assay-lang/assay/plugins/sdk"
)

// serve maps a built-in's name to what it serves. Each starts its plugin
// afresh: one process serves one plugin.
var serve = map[string]func() sdk.Plugins{
	"command": func() sdk.Plugins { return sdk.Plugins{Trainer: trainer.New(trainer.Options{})} },
	"offline": func() sdk.Plugins { return sdk.Plugins{LLM: offline.Model{}} },
	"openai":  func() sdk.Plugins { return sdk.Plugins{LLM: openai.New()} },
	"tinylm":  func() sdk.Plugins { return sdk.Plugins{Trainer: tinylm.NewTrainer()} },
}

// Names lists the built-in plugins, sorted.
func Names() []string {
	names := make([]string, 0, len(serve))
	for n := range serve {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Main serves the built-in plugin os.Args asks for and never returns when
// one is asked for; otherwise it returns at once. Call it first in main
// (or TestMain).
func Main() {
	name, ok := sdk.BuiltinRequested(os.Args)
	if !ok {
		return
	}
	setProcName(filepath.Base(os.Args[0]))
	mk, ok := serve[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "assay: no built-in plugin %q (built-ins: %v)\n", name, Names())
		os.Exit(1)
	}
	sdk.Serve(mk())
	os.Exit(0)
}
