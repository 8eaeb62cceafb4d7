package caddymodule

import (
	"net/http"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

func TestBodyOnlyBetas(t *testing.T) {
	tests := []struct {
		name, header, body string
		upstream           codec.Protocol
		wantHeader         string
		wantBody           string
	}{
		{name: "moved to the body, the rest kept in the header", upstream: codec.VertexAnthropic,
			header: "interleaved-thinking-2025-05-14, context-1m-2025-08-07", body: `{"max_tokens":1}`,
			wantHeader: "interleaved-thinking-2025-05-14", wantBody: `{"max_tokens":1,"anthropic_beta":["context-1m-2025-08-07"]}`},
		{name: "the header removed when nothing else is left", upstream: codec.VertexAnthropic,
			header: "context-1m-2025-08-07", body: `{"anthropic_beta":["x"]}`,
			wantBody: `{"anthropic_beta":["context-1m-2025-08-07","x"]}`},
		{name: "nothing to move", upstream: codec.VertexAnthropic,
			header: "interleaved-thinking-2025-05-14", body: `{}`, wantHeader: "interleaved-thinking-2025-05-14", wantBody: `{}`},
		{name: "no header", upstream: codec.VertexAnthropic, body: `{}`, wantBody: `{}`},
		{name: "first-party Anthropic takes it in the header", upstream: codec.AnthropicMessages,
			header: "context-1m-2025-08-07", body: `{}`, wantHeader: "context-1m-2025-08-07", wantBody: `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodPost, "http://x/", nil)
			if tt.header != "" {
				r.Header.Set("Anthropic-Beta", tt.header)
			}
			out, err := bodyOnlyBetas(r, []byte(tt.body), tt.upstream)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.wantBody {
				t.Errorf("body = %s, want %s", out, tt.wantBody)
			}
			if got := r.Header.Get("Anthropic-Beta"); got != tt.wantHeader {
				t.Errorf("header = %q, want %q", got, tt.wantHeader)
			}
		})
	}
}
