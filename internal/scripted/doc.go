// Package scripted is a fake LLM provider for tests, benchmarks and for
// running the real Claude Code CLI offline (ANTHROPIC_BASE_URL). It speaks
// the Anthropic Messages API, OpenAI Chat Completions and the OpenAI
// Responses API, streaming included, and answers from a Script.
//
// # Endpoints
//
// Paths are matched by suffix, so both "/v1/messages" and a base URL
// without /v1 work; query strings (Claude Code sends ?beta=true) are
// ignored.
//
//	POST .../messages               Anthropic Messages, "stream": true or not
//	POST .../messages/count_tokens  {"input_tokens": N}, N ≈ body bytes / 4
//	POST .../chat/completions       OpenAI Chat Completions, stream or not;
//	                                stream_options.include_usage adds a final
//	                                usage chunk; thinking is sent as
//	                                reasoning_content
//	POST .../responses              OpenAI Responses, stream or not: output
//	                                items (thinking as a reasoning item whose
//	                                summary is the text, with its Signature as
//	                                encrypted_content when the request's
//	                                include asks for it), streamed as typed
//	                                events (output_item added/done, text,
//	                                summary and argument deltas) ending in
//	                                response.completed, or response.incomplete
//	                                at max_tokens; errors in OpenAI's shape
//	GET  .../models[/id]            model list usable by either SDK
//	GET|HEAD /                      200 "ok" (reachability probes)
//	POST .../publishers/anthropic/models/M:streamRawPredict (or :rawPredict)
//	                                Anthropic Messages as Vertex AI serves
//	                                them: the model from the path
//	POST .../model/M/invoke-with-response-stream (or /invoke)
//	                                Anthropic Messages as Amazon Bedrock
//	                                serves them: model and streaming from the
//	                                path, the stream in AWS event-stream
//	                                frames (base64 "chunk" events, errors as
//	                                exception frames), error answers as
//	                                {"message"} with X-Amzn-ErrorType
//
// Auth headers (x-api-key, Authorization: Bearer) are accepted and ignored
// unless a key is required (Script.RequireKey / WithRequireKey); then a
// missing or wrong key gets a 401 with the provider's real error shape.
//
// # Step selection
//
// The step answering a request is the number of assistant turns already in
// the request's "messages" (adjacent assistant messages count once; for the
// Responses API, its "input" items, where a run of reasoning, assistant
// messages and function calls is one turn). This
// keeps the server stateless per conversation: any number of concurrent or
// resumed conversations walk the same script. Past the last step the
// Fallback answers (default text "done").
//
// Side requests get the Fallback without consuming a step: requests with no
// (or empty) "tools" (turn off with side_without_tools: false /
// WithSideWithoutTools(false)) and requests whose model matches
// side_model_pattern, a regular expression, default "haiku" (turn off with
// "" / WithSideModelPattern("")). This catches Claude Code's title and
// quota calls.
//
// # Faults
//
// A step's Fault applies to the first Times attempts (default 1) of that
// step, counted server-wide per step index, so a client retry succeeds; with
// Always it applies every time. Status answers an error before streaming
// (retry-after and retry-after-ms headers from RetryAfter); MidStreamError
// streams about half of the reply then an Anthropic error event
// (overloaded_error) or, for OpenAI streams and non-streaming replies, cuts
// the connection; DropAfterBytes closes the connection after that many body
// bytes (0: before any response); FirstByteDelayMS delays the headers;
// DelayBetweenChunksMS paces streamed events. Stall goes quiet until the
// client gives up: "headers" never answers, "body" sends the headers and
// StallAfterEvents events, "pings" then sends only keep-alives (Anthropic
// ping events, OpenAI ": keep-alive" comments) every PingEveryMS. Status
// 200 with ContentType (and Body or BodyText) answers a streaming call with
// something else: an HTML page, a JSON error.
//
// # Context limits
//
// ContextLimit (context_limit) gives the server a real context window in
// tokens, counted as body bytes / 4 like its reported usage. A completion
// request over it (side requests included) gets the provider's real
// overflow error: Anthropic's "prompt is too long: N tokens > M maximum",
// or for OpenAI requests the shape of overflow_dialect: openai
// (context_length_exceeded), vllm, deepseek, llamacpp, lmstudio, ollama or
// openrouter. vllm, deepseek and openrouter count max_tokens against the
// window, as those servers do. Request.Overflow marks refused requests.
//
// StepMarkers (step_markers) embeds the step index in generated tool-call
// ids ("toolu_01st0007_…", "call_st0007_…") and selects the step from the
// last marked call in the request plus the assistant turns after it, so a
// conversation whose older turns were replaced by a summary keeps walking
// the script in order.
//
// # Script file
//
//	{
//	  "steps": [
//	    {"text": "Let me look.", "tool_calls": [{"name": "Read", "input": {"file_path": "a.go"}}]},
//	    {"thinking": "...", "text": "Done.", "usage": {"input_tokens": 10, "output_tokens": 5},
//	     "fault": {"status": 529, "retry_after": "0.1"}}
//	  ],
//	  "fallback": {"text": "ok"},
//	  "side_model_pattern": "haiku", "side_without_tools": true,
//	  "require_key": "", "models": ["claude-sonnet-4-5"], "chunk_size": 12,
//	  "context_limit": 50000, "overflow_dialect": "vllm", "step_markers": true
//	}
//
// Unknown fields are errors naming the step and field.
package scripted
