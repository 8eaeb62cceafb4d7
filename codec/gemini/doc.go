// Package gemini registers with package codec the codec of the Gemini API
// and the protocols that speak it:
//
//   - gemini, the Gemini API (generateContent);
//   - vertex, Gemini on Vertex AI: the same wire format on Vertex paths.
//
// Programs import it for that effect (or codec/all); it exports nothing
// but SkipThoughtSignature, the value Google documents for function calls
// without a thought signature.
package gemini
