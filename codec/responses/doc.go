// Package responses registers the codec of openai-responses, the OpenAI Responses API (what Codex speaks)
// with package codec. Programs import it for that effect (or codec/all);
// it exports nothing.
package responses
