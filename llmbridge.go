// Package llmbridge is a Caddy v2 plugin that translates LLM API protocols
// in flight: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages,
// Gemini, Gemini on Vertex AI and Anthropic on Vertex AI, any client to any
// upstream.
//
// Importing this package registers the http.handlers.llmbridge module and
// the llmbridge Caddyfile directive, so that
//
//	xcaddy build --with github.com/llmbridge/llmbridge
//
// builds a Caddy that has them. The code lives in the subpackages:
// caddymodule (Caddy glue), codec (the canonical model and the protocol
// codecs), mapping (lossy correspondences between protocols) and sse
// (Server-Sent Events).
package llmbridge

import _ "github.com/llmbridge/llmbridge/caddymodule"
