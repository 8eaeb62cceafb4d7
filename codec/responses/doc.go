// Package responses registers with package codec the codec of the OpenAI
// Responses API (what Codex speaks) and the protocols that speak it:
//
//   - openai-responses, the Responses API of OpenAI and of the
//     OpenAI-compatible servers that have one;
//   - azure-openai-responses, the Responses API on Azure OpenAI's paths.
//
// Programs import it for that effect (or codec/all); it exports nothing.
package responses
