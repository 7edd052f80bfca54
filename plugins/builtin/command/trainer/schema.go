package trainer

import "github.com/assay-lang/assay/stdlib/pluginconfig"

// Schema declares this trainer's config (keys, types, defaults, the rules
// between keys) for `assay validate`, the docs and ParseConfig, which
// decodes through it.
var Schema = pluginconfig.Command
