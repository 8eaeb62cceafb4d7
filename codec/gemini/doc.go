// Package gemini registers the codec of gemini, the Gemini API, and vertex, Gemini on Vertex AI
// with package codec. Programs import it for that effect (or codec/all);
// it exports nothing.
package gemini
