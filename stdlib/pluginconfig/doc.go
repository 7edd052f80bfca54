// Package pluginconfig declares the config of each built-in plugin
// ("builtin:openai", "builtin:offline", "builtin:tinylm", "builtin:command"):
// its keys, their types, which are required, defaults, allowed words,
// nested objects and the rules between keys (exactly one of, needs).
//
// The declaration is the single source of truth for three readers: the
// compiler checks a plugin block's config against it, so `assay validate`
// reports a typo, a missing key or a wrong type before anything runs; the
// plugins decode their config with it (Schema.Decode fills the defaults
// stated here), so a config the compiler accepts is one the plugin
// accepts; and the docs generator writes the reference from it.
//
// builtin:command's config holds knobs, each with a type (knobs.go;
// base/valuetype), and bash templates, which this package parses and
// checks (command.go, grammar.go, flow.go): each value is quoted as one
// word, and a placeholder is refused where bash's own grammar reads the
// word as code, so the check validate runs is the trainer's own. It keeps
// no table of programs: a typed value is data to any of them.
//
// Plugins import this package, and plugins see only the plugin protocol, so
// it imports nothing of Assay: problems come back as plain Problems, and
// the compiler turns them into positioned diagnostics. A plugin with a
// source other than "builtin:NAME" has no declaration here and its config
// is passed on unchecked.
package pluginconfig
