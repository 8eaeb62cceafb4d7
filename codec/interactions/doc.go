// Package interactions is the codec family of Google's Gemini
// Interactions API (POST /v1beta/interactions): gemini-interactions, the
// Gemini API's, and vertex-interactions, Vertex AI's
// (projects/*/locations/*/interactions, where the SDKs post). A
// request is a model, an input (a string, content, or typed steps), a
// system instruction, tools and a generation config; the answer is an
// interaction whose steps are the model's output (model_output, thought,
// function_call and hosted tool steps); a stream is Server-Sent Events
// named interaction.created, step.start, step.delta, step.stop,
// interaction.status_update, interaction.completed and error, each with an
// event_id, followed by data: [DONE].
//
// The codec is stateless, as every family is: a request that continues a
// stored interaction (previous_interaction_id) cannot be translated by
// itself, and the HTTP layer puts the stored history into its input
// before decoding it.
package interactions
