// Package chat registers the codec of openai-chat, OpenAI Chat Completions, and the OpenAI-compatible
// servers that speak it with dialects of their own (codec.Dialect)
// with package codec. Programs import it for that effect (or codec/all);
// it exports nothing.
package chat
