// Package openai is Assay's built-in LLM plugin for any server that speaks
// the OpenAI chat-completions API: hosted APIs, vLLM, Ollama, llama.cpp.
//
// It sends the messages the runtime rendered from the role's prompt
// templates (CompleteRequest.Messages) exactly as given, or, without them,
// Assay's default chat of the role call's Payload (payload.Chat). It reads
// the answer as the role's JSON response type, or a critic's verdict by
// the pattern its payload names (payload.ParseVerdict), and hands it back
// as the response Payload; an answer that cannot be read is
// plugins.ErrUnparsed, billed, which the runtime may ask again. Transient failures (429, 5xx,
// timeouts, dropped connections) are retried with exponential backoff and
// jitter, honouring Retry-After; a per-config rate limit and concurrency
// limit keep a run within the server's quotas. Token usage comes from the
// server's usage report.
//
// Its config is declared in package stdlib/pluginconfig (OpenAI), which
// `assay validate` checks and this plugin decodes with, defaults included.
// Requests go only to the config's base_url: there is no default endpoint,
// a request whose config has none fails with a config error before any
// connection is opened, and redirects are not followed. The API key comes
// only from the environment variable api_key_env names (default
// OPENAI_API_KEY); a key in the config is refused. Every error the plugin
// returns is redacted (package plugins/redact): the runtime journals
// errors, and a server may echo the key or the Authorization header.
//
// Update returns plugins.ErrUnsupported: a hosted model cannot be trained
// through this API. Serving is done by package plugins/sdk.
package openai
