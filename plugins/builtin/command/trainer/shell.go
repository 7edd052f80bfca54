package trainer

import (
	"strings"

	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// A command template is parsed and checked by pluginconfig.CompileCommand,
// the same code `assay validate` runs: each placeholder becomes a quoted
// reference to a variable run.sh defines, and a placeholder whose value
// could reach an interpreter is refused.

type commandTemplate = pluginconfig.CommandTemplate

func compileCommand(text string) (*commandTemplate, error) { return pluginconfig.CompileCommand(text) }

const varPrefix = pluginconfig.VarPrefix

func varName(name string) string { return pluginconfig.VarName(name) }

// shellQuote single-quotes s for bash: nothing in it is special then.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
