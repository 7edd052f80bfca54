// Package payload defines the JSON payloads of the LLM roles: what the
// runtime puts in plugins.CompleteRequest.Payload for each role and what a
// model returns in plugins.CompleteResponse.Payload.
//
// The runtime renders these structures; a hosted-model client turns a request
// into a prompt and parses the model's answer back into the response type; the
// built-in offline model (plugins/builtin/offline) reads them directly. One
// package keeps all three in agreement.
//
// Roles and their pairs:
//
//	proposer              ProposeRequest   -> ProposeResponse
//	rwm                   PredictRequest   -> PredictResponse
//	critic                CritiqueRequest  -> CritiqueResponse
//	summarizer            SummarizeRequest -> SummarizeResponse
//	builder, implementer  ImplementRequest -> ImplementResponse
//
// NewVars turns a request into its role kind's prompt variables
// (base/prompt), which the runtime renders the role's templates over; Chat
// is the default chat for a caller that renders none; ParseVerdict reads a
// critic's label from free text by a pattern, ParseIdeas a proposer's
// ideas from free text (one, or a list), and ParseImplement a builder's
// change in any shape a model writes one (the JSON object, a unified
// diff, SEARCH/REPLACE blocks, whole files), so every LLM plugin reads
// answers alike.
//
// Decode rejects unknown fields, so a misspelt field is an error rather than
// a silent zero. The next phase is the plugin protocol (plugins/proto), which
// carries these payloads as opaque bytes.
package payload
