// Package anthropic registers the codec of anthropic-messages, Anthropic Messages, and vertex-anthropic,
// Messages on Vertex AI (the model in the path, anthropic_version in the
// body)
// with package codec. Programs import it for that effect (or codec/all);
// it exports nothing.
package anthropic
