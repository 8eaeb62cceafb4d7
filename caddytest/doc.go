// Package caddytest holds llmbridge's integration tests: a real Caddy with
// the module, mock upstreams that speak each protocol (and replay recorded
// provider traffic), and the official SDKs as clients. It has no non-test
// code beyond this comment.
//
// The suite, all in _test.go files:
//
//   - caddy_test.go: one in-process Caddy per test binary (admin API on
//     a free port), one site per upstream protocol, one with api_key and
//     access logging per upstream, one per upstream whose upstream is not
//     listening, one with a small max_request_body, per upstream one with
//     model rules (twice: response_model client and upstream), one with
//     client_keys and one that reaches its mock through a front
//     (upstream_front_test.go) with reverse_proxy's transport
//     read_timeout, a site split by the llm_model matcher, and one whose
//     access log carries every llmbridge placeholder, and one per
//     non-default on_unsupported level (policy_test.go).
//   - mock_test.go: one httptest upstream per protocol that validates each
//     request as the real provider would (method, exact path, credential
//     scheme, known top-level fields, protocol rules), records it, and
//     answers a scenario or a hand-written success body.
//   - clients_test.go: openai-go (Chat, Responses), anthropic-sdk-go
//     (Messages, Vertex, Bedrock) and google.golang.org/genai (Gemini API,
//     Vertex) behind one interface; converse_clients_test.go and
//     converse_agent_clients_test.go: aws-sdk-go-v2's bedrockruntime
//     (Converse, ConverseStream) behind the same interfaces.
//   - bedrock_mock_test.go, converse_mock_test.go,
//     converse_validate_test.go: the Bedrock mocks: SigV4 signatures
//     verified with the test's AWS credentials (or a Bedrock API key),
//     Bedrock's body rules for InvokeModel and Converse, AWS errors with
//     X-Amzn-Errortype, and answers in AWS event streams (chunks of
//     Anthropic's events, or Converse's events).
//   - bedrock_sdk_test.go: aws-sdk-go-v2's Converse, ConverseStream,
//     InvokeModel and InvokeModelWithResponseStream through every
//     upstream; azure_test.go: Azure OpenAI upstreams (an Azure front
//     checking its paths, api-version and api-key or Entra ID token) and
//     openai-go's Azure client.
//   - pairs_test.go, errors_test.go, passthrough_test.go,
//     credentials_test.go, hostile_test.go: every client->upstream pair,
//     upstream errors and unreachable upstreams, byte-exact passthrough,
//     credentials, and the hostile-input catalogue (hostile_test.go): one
//     table of malformed, mistyped, deep, huge, duplicated, mis-framed and
//     mis-routed requests, run for every client protocol through a
//     cross-family upstream and, where llmbridge itself validates, a
//     same-family one; each must be a 4xx in the client's error format
//     with no upstream call (or, where the case says so, be forwarded),
//     within 2 s.
//   - recordings_test.go: real recorded traffic from ../shared/recordings
//     (skipped when absent) replayed by the mocks, and checked against them.
//   - streaming_mock_test.go: the mocks' streaming side: each answers a
//     streamed request in its protocol's exact streaming form (checking the
//     request asks for it properly), can hold back its closing events until
//     the test releases them, fail inside the stream, end it early or reset
//     the connection; streaming_mocks_test.go checks the mocks themselves.
//   - streaming_clients_test.go: the SDKs' streaming APIs behind one
//     interface.
//   - streaming_pairs_test.go, streaming_failures_test.go,
//     streaming_disconnect_test.go, streaming_recordings_test.go: every
//     pair streamed with incremental delivery checked, in-stream errors,
//     truncation, resets and JSON errors through every SDK, client
//     cancellation (propagation delay and goroutine leaks), and every
//     streamed recording replayed to every client.
//   - cache_mock_test.go: the mocks' prompt cache as the providers
//     document it (explicit breakpoints with lifetimes and a twenty-block
//     look-back for Anthropic's protocols and Converse, automatic prefixes
//     for OpenAI and Gemini, per-model minimums, a clock a test advances)
//     and the breakpoint rules the mocks enforce; cache_share_test.go:
//     sessions shaped like Claude Code's, Codex's, Gemini CLI's, Qwen
//     Code's and a Converse agent's from a client of every protocol to
//     every upstream family, the share of input read from the cache as
//     the client's usage reports it (equal to the mock's count), at least
//     90% of native from the third turn; lifetimes across a pause.
//   - streaming_awsfaults_test.go: broken event stream messages from both
//     Bedrock upstreams (bad CRCs, undecodable chunks, events without a
//     type, a 2 GiB length, a cut message), sent with the text before them
//     in one write and byte by byte, to every client SDK: the text arrives
//     whole, then the client's in-stream error, and the response ends
//     within 100 ms while the upstream holds its connection open.
//   - tools_clients_test.go, tools_mock_test.go, tools_test.go: function
//     tools, tool calls and results, and images, for every pair streaming
//     and not: a complete agent turn (the upstream checks the tool
//     definition, answers a call with fragmented streamed arguments, then
//     checks the call and its result in the history), two parallel calls,
//     a call without arguments, and a base64 PNG user image checked byte
//     for byte upstream. A mock's check hook (mock_test.go) adds a test's
//     own validation of the request body.
//   - reasoning_mock_test.go, reasoning_clients_test.go, reasoning_test.go:
//     reasoning, refusals and usage end to end. A two-turn agent conversation with thinking and
//     a tool call for every upstream that signs its reasoning (Anthropic,
//     Vertex Anthropic, Responses, Gemini, Vertex, both Bedrock protocols)
//     and every client,
//     streamed and not: the upstream issues native opaque values
//     (signatures, redacted_thinking, encrypted_content, thought
//     signatures), each SDK replays the answer as it does
//     (Message.ToParam(), output items as input items, the Chat message
//     with reasoning_content, the returned Content, with and without
//     thought parts, and genai's Chat), and the upstream checks that every
//     value comes back byte for byte; refusals and filter stops of every
//     upstream to every client; max-tokens truncation; each protocol's
//     reasoning settings as every other upstream receives them; cached and
//     reasoning token usage in every client's own fields.
//   - routing_test.go, clientkeys_test.go, observe_test.go,
//     metrics_test.go: model rules on every pair (streamed and not, the
//     client's model restored or the upstream's kept), the llm_model
//     matcher splitting one site between two mocks, client keys accepted
//     and rejected in every protocol with no key reaching the upstream or
//     any log, llmbridge's access log fields and placeholders, and the
//     caddy_llmbridge_* metrics scraped from the admin /metrics.
//   - telemetry_test.go: sites with Caddy's tracing directive exporting to
//     an OTLP/HTTP receiver in the test (OTEL_* set before Caddy starts);
//     every client x upstream pair, streamed and not, checks the GenAI
//     attributes of the request's span and of the upstream call's span,
//     no content by default, and the access log of the same trace (named
//     client key, upstream address, models, usage, cost from a model rule
//     price); an upstream error and a cut stream set error.type;
//     otel_content records prompt and completion; an azure-openai upstream
//     is azure.ai.openai; the GenAI metrics' model label stays bounded.
//   - conformance_test.go, conformance_expect_test.go,
//     client_decode_test.go: TestConformance replays every recording in
//     ../shared/recordings to every client protocol and prints a pass rate
//     per protocol pair (-conformance.out writes the table to a file); what
//     a recording says is read by the test itself, what the client got is
//     read with the client protocol's codec, a stream checked for a
//     well-formed event sequence.
//   - upstream_front_test.go, upstream_interim_test.go,
//     upstream_stall_test.go: upstreams that send 1xx responses (103 Early
//     Hints, 100 Continue) before JSON and SSE answers, and upstreams that
//     stop sending (before the headers, halfway through a JSON body, in the
//     middle of a stream) behind read_timeout.
//   - endpoints_mock_test.go, endpoints_test.go: the mocks' model listings
//     and token counting endpoints (validated as each provider would), and
//     every SDK's listing and counting through every upstream: the
//     upstream's ids and count in the client's shape, a clear 400 where the
//     upstream has no such endpoint (Vertex listings, Chat counting), and
//     client_keys and model rules applied to both.
//   - modelrules_mock_test.go, modelrules_test.go, dialect_mock_test.go,
//     modelrules_current_test.go: every mock holds requests to the model
//     table's reject-level rules in the provider's own words (and, where a
//     test installs it, a dialect server's: Mistral, DeepSeek, OpenRouter,
//     Groq); TestModelRules sends agent-shaped requests for every model of
//     the table, TestCurrentModelRules one case per recently learned rule
//     (each fails when its fitting is removed).
//   - learn_test.go: errors that teach, per provider grammar: a mock
//     enforces a rule llmbridge's table lacks; the refusal is retried once
//     with the fix and the next request is fitted without one; strict, a
//     fix the policy does not make and an unknown refusal are passed on.
//   - probe_test.go: caddy llmbridge-probe (caddymodule.Probe) against the
//     rules-enforcing mocks: the model_rule it measures is the model's row.
//   - failover_test.go: failover sites (their own Caddyfile: named routes
//     before faulty upstreams that stand before the mocks and answer 529
//     JSON, 429 with Retry-After, a 503 HTML page or a reset before the
//     header; the mocks' stream plans send an overloaded or throttling
//     event before any content, or an error after it): clients of every
//     protocol, streamed and not, through chains that mix protocols get
//     the next target's answer whole, and no retry after content; a
//     target with nothing listening, the last failure with Retry-After,
//     the answering target in the headers, placeholders and access log;
//     cooldowns from the providers' headers and the circuit breaker; key
//     pool rotation and removal; TestFailoverTTFB (-perf) measures the
//     time to first content next to a plain site. load_test.go's
//     TestLoadFailover runs streams through a failover site whose first
//     target fails 30% of its requests.
//   - interactions_*_test.go: the Gemini Interactions API, a protocol of
//     allProtocols on both sides: the generic mocks' Interactions side
//     (interactions_generic_mock_test.go: fields, steps, answers, streams,
//     errors and tool calls; interactions_reasoning_mock_test.go: signed
//     thought steps), google.golang.org/genai's Interactions client on
//     the Gemini API and on Vertex AI in every client matrix
//     (interactions_client_test.go, _replay, _probe, _tools), a stateful
//     Interactions mock that keeps interactions
//     (interactions_mock_test.go) for previous_interaction_id, GET and
//     DELETE through every upstream (interactions_test.go), tool loops
//     continued by previous_interaction_id (interactions_kept_test.go),
//     and malformed steps, unknown call ids and expired ids
//     (interactions_hostile_test.go).
//   - clis_test.go: opt-in (-clis) real agent CLIs from npm
//     (clis/install.sh: Claude Code, also in Bedrock mode, Codex, also as an
//     Azure provider, Gemini CLI, Qwen Code) complete a tool-using turn through llmbridge against a scripted mock of every
//     other family (docs/testing.md: Real agent CLIs), and through a
//     failover site whose first target, their own provider, is overloaded.
//   - sdks_test.go, sdks_mock_test.go: opt-in (-sdks) application SDKs
//     from npm (sdks/install.sh: the Vercel AI SDK with default settings,
//     openai-node's Responses helpers, the OpenAI Agents SDK, @google/genai's
//     interactions.create; one script each in sdks/) complete
//     a two-step tool loop through every upstream, streamed and not,
//     against scripted mocks that check the call, its result and the
//     assistant's earlier text in the second step (docs/testing.md:
//     Application SDKs from npm).
//   - bedrock_metrics_test.go: aws-sdk-go-v2 reads Bedrock's invocation
//     metrics (stream chunk, headers, Converse metadata) through every
//     translated upstream.
//   - perf_*_test.go: the end-to-end benchmark against plain reverse_proxy
//     (TestPerf behind -perf; BenchmarkE2E*).
//
// xcaddy.sh (not a test) builds Caddy with xcaddy from this checkout and
// checks that the binary has llmbridge's modules.
//
// Run it with go test ./caddytest. Tests must not use t.Parallel: they
// share the one Caddy and its mocks.
package caddytest
