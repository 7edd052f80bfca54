// Package valuetype holds the types of the values a proposal may set: one
// of a list, a number or an integer (with optional bounds), a boolean, or a
// string matching a pattern (by default a plain word). Check says whether
// a value fits its type, Problem whether a declared type is one.
//
// A value that fits its type holds only letters, digits and a few marks
// (. _ + - , : / @): never a quote, a $, a backquote, a backslash, a space,
// a newline or any other control character, and at most MaxBytes of them.
// Such a value is one word to every program that reads it, and it cannot
// carry the syntax of a command, a substitution, a redirection or a string
// in any language; that holds wherever a template puts it, which is why a
// command template need only quote it (stdlib/pluginconfig).
//
// It is a leaf (base/): the standard library only, so the config schemas
// (stdlib/pluginconfig), the plugin protocol (plugins.Knob) and the runtime
// check values the same way.
package valuetype
