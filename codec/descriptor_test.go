package codec

import "testing"

// TestDescriptors checks that every protocol has a descriptor that names
// it, and that what the descriptors say agrees with the protocols' own
// methods.
func TestDescriptors(t *testing.T) {
	for _, p := range Protocols() {
		d := p.Descriptor()
		if d == nil || d.Name != p {
			t.Fatalf("%s: descriptor %+v", p, d)
		}
		if d.Family.Descriptor() == nil || d.Family.Descriptor().Family != d.Family {
			t.Errorf("%s: family %s is not a family of its own", p, d.Family)
		}
		if d.upstreamPath == nil {
			t.Errorf("%s: no upstream path", p)
		}
		if d.ModelInPath != (d.Route.Models != "") {
			t.Errorf("%s: ModelInPath %v but route %+v", p, d.ModelInPath, d.Route)
		}
		path, _ := d.UpstreamPath(Location{Project: "p", Region: "r"}, "m", false)
		if got, model, stream, ok := MatchRoute(path); !ok || got != p || stream || d.ModelInPath && model != "m" {
			t.Errorf("%s: its own upstream path %s is recognised as %s, %q, %v, %v", p, path, got, model, stream, ok)
		}
		path, _ = d.UpstreamPath(Location{Project: "p", Region: "r"}, "m", true)
		if got, _, stream, ok := MatchRoute(path); !ok || got != p || stream != d.ModelInPath {
			t.Errorf("%s: its own streaming path %s is recognised as %s, %v, %v", p, path, got, stream, ok)
		}
	}
	if Protocol("nope").Descriptor() != nil || Protocol("nope").ModelInPath() || Protocol("nope").Family() != "nope" {
		t.Errorf("an unknown protocol has a descriptor")
	}
}

// TestCountAndListing checks the descriptors' token counting and listing
// endpoints.
func TestCountAndListing(t *testing.T) {
	at := Location{Project: "proj", Region: "us-east5"}
	tests := []struct {
		p            Protocol
		count, list  string
		listPageSize string
	}{
		{OpenAIChat, "", "/v1/models", ""},
		{OpenAIResponses, "/v1/responses/input_tokens", "/v1/models", ""},
		{AnthropicMessages, "/v1/messages/count_tokens", "/v1/models", "limit"},
		{Gemini, "/v1beta/models/m:countTokens", "/v1beta/models", "pageSize"},
		{Vertex, "/v1/projects/proj/locations/us-east5/publishers/google/models/m:countTokens", "", ""},
		{VertexAnthropic, "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict", "", ""},
	}
	for _, tt := range tests {
		d := tt.p.Descriptor()
		if got := d.CountPath(at, "m"); got != tt.count || HasTokenCount(tt.p) != (tt.count != "") {
			t.Errorf("%s: count path %q, want %q", tt.p, got, tt.count)
		}
		if d.Listing.Path != tt.list || d.Listing.PageSize != tt.listPageSize || HasModelList(tt.p) != (tt.list != "") {
			t.Errorf("%s: listing %+v", tt.p, d.Listing)
		}
	}
}

// TestUnknownProtocol: every entry point answers an unknown protocol with
// an error, never a nil codec.
func TestUnknownProtocol(t *testing.T) {
	p := Protocol("nope")
	if d, err := NewStreamDecoder(p); d != nil || err == nil {
		t.Errorf("NewStreamDecoder = %v, %v", d, err)
	}
	if e, err := NewStreamEncoder(p, &Request{}); e != nil || err == nil {
		t.Errorf("NewStreamEncoder = %v, %v", e, err)
	}
	if err := DecodeRequest(p, []byte(`{}`), &Request{}); err == nil {
		t.Errorf("DecodeRequest succeeded")
	}
	if _, err := AppendRequest(nil, p, &Request{}, EncodeOptions{}); err == nil {
		t.Errorf("AppendRequest succeeded")
	}
	if err := DecodeResponse(p, []byte(`{}`), &Response{}); err == nil {
		t.Errorf("DecodeResponse succeeded")
	}
	if _, err := AppendResponse(nil, p, &Response{}); err == nil {
		t.Errorf("AppendResponse succeeded")
	}
	if out := AppendStreamError(nil, p, &Request{}, &Error{Message: "x"}); len(out) != 0 {
		t.Errorf("AppendStreamError wrote %q", out)
	}
	if evs := NewUsageObserver(p).Observe(nil, nil, []byte(`{"usage":{}}`), false); len(evs) != 0 {
		t.Errorf("NewUsageObserver observed %v", evs)
	}
}
