// Package codectest holds what the tests of the codec packages share:
// golden files under codec/testdata (CheckGolden, -update), the provider
// recordings beside the repository (ReadRecording, skipped when absent),
// canonical event streams and their well-formedness (WellFormed,
// Summarize, EncodeCases), and the openai-go checks of Responses streams.
// Only tests import it.
package codectest
