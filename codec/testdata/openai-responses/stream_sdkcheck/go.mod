// This module checks the golden Responses streams of package codec
// (../stream_*.sse) with the official openai-go stream parser. It lives under
// testdata, so the llmbridge module's ./... ignores it; run it with
// `go test` from this directory. Move the test into
// codec/openai_responses_stream_test.go once llmbridge's go.mod requires
// openai-go.
module llmbridge.test/responses-sdkcheck

go 1.26.0

require github.com/openai/openai-go/v3 v3.98.0

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	github.com/tidwall/sjson v1.2.9 // indirect
)
