// Package redact removes credentials from text that leaves a plugin: error
// messages the runtime stores in its journal, and log lines. A server may
// echo the request's API key or Authorization header in an error body; a
// plugin that copies that body into an error would otherwise put the key
// on disk.
//
// String replaces the given secret values (the API key a plugin holds)
// wherever they appear, and, whatever the secrets, Authorization and
// API-key header or field values, bearer tokens, "sk-..." style keys and
// passwords in URLs. Error wraps an error so that its message is redacted
// while errors.Is still sees the original chain; the original message is
// not reachable through it.
package redact
