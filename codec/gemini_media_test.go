package codec

import (
	"errors"
	"strings"
	"testing"
)

// Tests of inlineData and fileData parts.

// TestGeminiMedia covers inlineData and fileData in both directions.
func TestGeminiMedia(t *testing.T) {
	body := `{"contents":[{"parts":[{"text":"What is in these?"},` +
		`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},` +
		`{"inline_data":{"mime_type":"application/pdf","data":"JVBERi0=","display_name":"a.pdf"}},` +
		`{"inlineData":{"mimeType":"audio/wav","data":"UklGRg=="}},` +
		`{"fileData":{"mimeType":"image/jpeg","fileUri":"gs://bucket/cat.jpg"}},` +
		`{"file_data":{"mime_type":"application/pdf","file_uri":"https://example.com/a.pdf"}}]}]}`
	req, err := geminiDecode(t, Vertex, body)
	if err != nil {
		t.Fatal(err)
	}
	want := []Part{
		{Type: PartText, Text: "What is in these?"},
		{Type: PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
		{Type: PartDocument, MediaType: "application/pdf", Data: "JVBERi0="},
		{Type: PartAudio, MediaType: "audio/wav", Data: "UklGRg=="},
		{Type: PartImage, MediaType: "image/jpeg", URL: "gs://bucket/cat.jpg"},
		{Type: PartDocument, MediaType: "application/pdf", URL: "https://example.com/a.pdf"},
	}
	if !equalDecoded(req.Messages[0].Parts, want) {
		t.Fatalf("parts %+v\nwant %+v", req.Messages[0].Parts, want)
	}

	// Inline media are written as inlineData and decode to the same parts.
	inline := Request{Messages: []Message{{Role: RoleUser, Parts: want[:4]}}}
	out, aerr := AppendRequest(nil, Gemini, &inline, EncodeOptions{})
	if aerr != nil {
		t.Fatal(aerr)
	}
	checkGolden(t, "gemini/request_media.json", out)
	again, derr := geminiDecode(t, Gemini, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	if !equalDecoded(again.Messages[0].Parts, want[:4]) {
		t.Errorf("round trip %+v", again.Messages[0].Parts)
	}

	// URLs are never fetched, and the Gemini family's encoder cannot tell
	// the Gemini API (no URLs) from Vertex (fileData): both reject them.
	for _, p := range []Protocol{Gemini, Vertex} {
		r := Request{Messages: []Message{{Role: RoleUser, Parts: want[4:5]}}}
		_, err := AppendRequest(nil, p, &r, EncodeOptions{})
		var e *Error
		if !errors.As(err, &e) || e.Param != "messages[0].content[0]" || !strings.Contains(e.Message, "image given by URL") {
			t.Errorf("%s: error %v", p, err)
		}
	}
	r := Request{Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartAudio, Data: "AA=="}}}}}
	if _, err := AppendRequest(nil, Gemini, &r, EncodeOptions{}); err == nil || !strings.Contains(err.Error(), "media type") {
		t.Errorf("error %v, want one about the media type", err)
	}
}
