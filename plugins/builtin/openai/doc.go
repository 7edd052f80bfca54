// Command openai is Assay's built-in LLM plugin for any server that speaks
// the OpenAI chat-completions API: hosted APIs, vLLM, Ollama, llama.cpp.
//
// It renders a role call's structured Payload (package plugins/payload)
// into a chat prompt with instructions for that role, asks for a JSON
// answer, and checks the answer against the role's response type before
// handing it back as the response Payload. Transient failures (429, 5xx,
// timeouts, dropped connections) are retried with exponential backoff and
// jitter, honouring Retry-After; a per-config rate limit and concurrency
// limit keep a run within the server's quotas. Token usage comes from the
// server's usage report.
//
// Config (the plugin block's config):
//
//	base_url            API root, default https://api.openai.com/v1
//	model               model id when the role sets none
//	api_key_env         environment variable holding the API key, default
//	                    OPENAI_API_KEY (a key is never read from the spec)
//	requests_per_second rate limit, default 0 (none)
//	max_concurrency     requests in flight at once, default 8
//	max_retries         retries after the first attempt, default 5
//	timeout_seconds     per attempt, default 120
//	backoff_seconds     first retry delay, default 1 (doubles each retry)
//	max_backoff_seconds cap on the retry delay, default 60
//	json_mode           send response_format json_object, default true
//
// Update returns plugins.ErrUnsupported: a hosted model cannot be trained
// through this API. Serving is done by package plugins/sdk.
package main
