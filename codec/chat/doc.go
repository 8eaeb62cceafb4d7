// Package chat registers with package codec the codec of OpenAI Chat
// Completions and the protocols that speak it:
//
//   - openai-chat, OpenAI Chat Completions, and the OpenAI-compatible
//     servers that speak it with departures of their own (codec.Dialect);
//   - azure-openai, Chat Completions on Azure OpenAI's paths, with its
//     api-key header or an Entra ID token.
//
// Programs import it for that effect (or codec/all); it exports nothing.
package chat
