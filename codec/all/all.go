// Package all registers every protocol family llmbridge speaks with
// package codec. A program that translates imports it for its side
// effect:
//
//	import _ "github.com/llmbridge/llmbridge/codec/all"
//
// or imports only the families it needs (codec/chat, codec/responses,
// codec/anthropic, codec/gemini, codec/interactions, codec/bedrock).
package all

import (
	// Each family registers its protocols in its init function.
	_ "github.com/llmbridge/llmbridge/codec/anthropic"
	_ "github.com/llmbridge/llmbridge/codec/bedrock"
	_ "github.com/llmbridge/llmbridge/codec/chat"
	_ "github.com/llmbridge/llmbridge/codec/gemini"
	_ "github.com/llmbridge/llmbridge/codec/interactions"
	_ "github.com/llmbridge/llmbridge/codec/responses"
)
