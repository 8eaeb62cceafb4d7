package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
)

// TestGeminiMedia covers inlineData and fileData in both directions.
func TestGeminiMedia(t *testing.T) {
	body := `{"contents":[{"parts":[{"text":"What is in these?"},` +
		`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},` +
		`{"inline_data":{"mime_type":"application/pdf","data":"JVBERi0=","display_name":"a.pdf"}},` +
		`{"inlineData":{"mimeType":"audio/wav","data":"UklGRg=="}},` +
		`{"fileData":{"mimeType":"image/jpeg","fileUri":"gs://bucket/cat.jpg"}},` +
		`{"file_data":{"mime_type":"application/pdf","file_uri":"https://example.com/a.pdf"}}]}]}`
	req, err := decode(t, codec.Vertex, body)
	if err != nil {
		t.Fatal(err)
	}
	want := []codec.Part{
		{Type: codec.PartText, Text: "What is in these?"},
		{Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
		{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0="},
		{Type: codec.PartAudio, MediaType: "audio/wav", Data: "UklGRg=="},
		{Type: codec.PartImage, MediaType: "image/jpeg", URL: "gs://bucket/cat.jpg"},
		{Type: codec.PartDocument, MediaType: "application/pdf", URL: "https://example.com/a.pdf"},
	}
	if !codectest.EqualDecoded(req.Messages[0].Parts, want) {
		t.Fatalf("parts %+v\nwant %+v", req.Messages[0].Parts, want)
	}

	// Inline media are written as inlineData and decode to the same parts.
	inline := codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: want[:4]}}}
	out, aerr := codec.AppendRequest(nil, codec.Gemini, &inline, codec.EncodeOptions{})
	if aerr != nil {
		t.Fatal(aerr)
	}
	codectest.CheckGolden(t, "gemini/request_media.json", out)
	again, derr := decode(t, codec.Gemini, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	if !codectest.EqualDecoded(again.Messages[0].Parts, want[:4]) {
		t.Errorf("round trip %+v", again.Messages[0].Parts)
	}

	// URLs are never fetched, and the Gemini family's encoder cannot tell
	// the Gemini API (no URLs) from Vertex (fileData): both reject them.
	for _, p := range []codec.Protocol{codec.Gemini, codec.Vertex} {
		r := codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: want[4:5]}}}
		_, err := codec.AppendRequest(nil, p, &r, codec.EncodeOptions{})
		var e *codec.Error
		if !errors.As(err, &e) || e.Param != "messages[0].content[0]" || !strings.Contains(e.Message, "image given by URL") {
			t.Errorf("%s: error %v", p, err)
		}
	}
	r := codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartAudio, Data: "AA=="}}}}}
	if _, err := codec.AppendRequest(nil, codec.Gemini, &r, codec.EncodeOptions{}); err == nil || !strings.Contains(err.Error(), "media type") {
		t.Errorf("error %v, want one about the media type", err)
	}
}
