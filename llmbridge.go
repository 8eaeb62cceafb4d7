// Package llmbridge is a Caddy v2 plugin that translates LLM API protocols
// in flight, any client to any upstream: OpenAI Chat Completions
// (openai-chat), OpenAI Responses (openai-responses), Anthropic Messages
// (anthropic-messages), the Gemini API (gemini), Gemini on Vertex AI
// (vertex), Anthropic on Vertex AI (vertex-anthropic), Azure OpenAI's Chat
// Completions and Responses (azure-openai, azure-openai-responses, as
// upstreams), Amazon Bedrock's Converse API (bedrock) and Anthropic on
// Bedrock's InvokeModel (bedrock-anthropic).
//
// Importing this package registers the http.handlers.llmbridge module and
// the llmbridge Caddyfile directive, so that
//
//	xcaddy build --with github.com/llmbridge/llmbridge
//
// builds a Caddy that has them. The code lives in the subpackages:
// caddymodule (Caddy glue), codec (the canonical model and the protocol
// registry, with one package per protocol family below it), mapping (lossy
// correspondences between protocols) and sse (Server-Sent Events, and AWS
// event streams in sse/eventstream).
package llmbridge

import _ "github.com/llmbridge/llmbridge/caddymodule"
