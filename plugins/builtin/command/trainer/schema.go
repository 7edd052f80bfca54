package trainer

import "github.com/assay-lang/assay/stdlib/pluginconfig"

// Schema declares this trainer's config (keys, types, defaults, the rules
// between keys) for `assay validate` and the docs; ParseConfig reads the
// same keys, and schema_test.go keeps the two in step.
var Schema = pluginconfig.Command
