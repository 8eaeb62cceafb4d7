// Package bedrock registers with package codec the codec of the Converse
// API of Amazon Bedrock Runtime, the one protocol bedrock (Anthropic
// Messages on Bedrock's InvokeModel is package anthropic's
// bedrock-anthropic). Programs import it for that effect (or codec/all);
// it exports nothing.
//
// # Wire format
//
// A request is POST /model/{modelId}/converse (or /converse-stream); the
// model is only in the path. The body holds messages (role user or
// assistant, content an array of blocks), system (text blocks),
// inferenceConfig (maxTokens, temperature, topP, stopSequences), toolConfig
// (tools of toolSpec {name, description, inputSchema.json}, toolChoice auto,
// any or tool), outputConfig (textFormat json_schema and effort), and
// additionalModelRequestFields, the model vendor's own fields. Content
// blocks are unions named by their one member: text, image {format,
// source.bytes}, document {format, name, source.bytes}, toolUse {toolUseId,
// name, input}, toolResult {toolUseId, content [{text} | {json} | {image} |
// {document}], status}, reasoningContent {reasoningText {text, signature}}
// or {redactedContent}, cachePoint, guardContent, citationsContent.
//
// A response has output.message, stopReason, usage (inputTokens excludes
// cache reads and writes, as Anthropic's input_tokens does), metrics and
// additionalModelResponseFields; it has no id and no model, so decoded
// responses leave them empty and encoded ones omit them. A stream is an AWS
// event stream, which the HTTP layer turns into SSE text before the decoder
// and back after the encoder: one SSE event per message, named by its
// :event-type (messageStart, contentBlockStart, contentBlockDelta,
// contentBlockStop, messageStop, metadata), with the message's JSON payload
// as its data; an exception is an event named exception:<type>.
//
// # What maps where
//
// Canonical text, images and documents (base64), tool calls and results,
// reasoning and the sampling settings of inferenceConfig map one to one.
// Reasoning signatures are Anthropic's (Claude is the only Bedrock model
// family that signs its reasoning), so reasoning parts have Origin
// FamilyAnthropic and pass to Anthropic upstreams; other families'
// reasoning travels in continuation envelopes in reasoningText.signature.
// Consecutive messages of one role are merged (Converse requires
// alternating turns), and a history with tool blocks always gets a
// toolConfig: Bedrock rejects toolUse and toolResult blocks without one, so
// the tools the client did not declare are declared with a permissive
// {"type":"object"} schema (what LiteLLM does for the same reason).
//
// The fields Converse has no common slot for are written in
// additionalModelRequestFields in the shape of the model's vendor, known
// from the model id: for Claude models (anthropic.claude-*, with or
// without a cross-region prefix, or an ARN ending in one) thinking and
// top_k as Anthropic spells them, and an effort beside a thinking budget
// in outputConfig.effort. Toward other models (and application inference
// profiles, whose ARNs do not name the model) top_k and reasoning settings
// have no home and are refused with a capability error; asking for no
// reasoning is dropped instead, since the model's default stays.
//
// Refused toward every model, as capability errors: presence and
// frequency penalties, verbosity, JSON output without a schema, hosted
// tools (web search), audio, images and documents given by URL or in a
// media type Converse has no format for, and tool choice none when the
// history holds tool calls (Converse has no "none"; without tool history
// it is written as no tools). Dropped as hints, and listed in
// Request.Dropped: a seed, the end-user id, the parallel tool call switch,
// a Responses reasoning summary, and reasoning of other families or
// without a signature in the history (Claude verifies the reasoning it
// is given).
//
// Decoding a Converse client's request, Claude's additionalModelRequestFields
// (thinking, top_k, anthropic_beta) are read into the canonical request;
// any other model-specific field is a capability error, since no other
// protocol can carry it. Cache points, guardrail settings, performance and
// service tier settings, request metadata and additionalModelResponseFieldPaths
// steer the provider and are dropped hints; prompt variables, guard
// content, video, S3 sources and Bedrock system tools are refused.
package bedrock
