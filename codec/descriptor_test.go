package codec

import (
	"slices"
	"testing"
)

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

// TestDescriptorFallbacks: what answers a protocol without the endpoint
// or an unknown protocol gets, and the headers a request to each family
// goes without.
func TestDescriptorFallbacks(t *testing.T) {
	nope := Protocol("nope")
	if got := string(AppendError(nil, nope, &Error{Message: "m"})); got != `{"error":{"message":"m","type":"server_error","param":null,"code":null}}` {
		t.Errorf("AppendError for an unknown protocol = %s", got)
	}
	if got := string(AppendModelList(nil, nope, &ModelList{Models: []ModelInfo{{ID: "x"}}}, ModelListOptions{})); got != `{"object":"list","data":[{"id":"x","object":"model","created":0,"owned_by":""}]}` {
		t.Errorf("AppendModelList for an unknown protocol = %s", got)
	}
	if _, err := DecodeCountResponse(OpenAIChat, []byte(`{"input_tokens":1}`)); err == nil {
		t.Errorf("DecodeCountResponse for openai-chat succeeded")
	}
	if got := string(AppendCountResponse(nil, OpenAIChat, 3)); got != `{"input_tokens":3}` {
		t.Errorf("AppendCountResponse for openai-chat = %s", got)
	}
	if e := DecodeError(nope, 400, []byte(`{"error":{"message":"m","code":"c","param":"p"}}`)); e.Param != "p" || e.Code != "c" {
		t.Errorf("DecodeError for an unknown protocol = %+v", e)
	}
	for _, tt := range []struct {
		p       Protocol
		without []string
	}{
		{OpenAIChat, []string{"Anthropic-Version", "Anthropic-Beta"}},
		{OpenAIResponses, []string{"Anthropic-Version", "Anthropic-Beta"}},
		{AnthropicMessages, []string{"Openai-Organization", "Openai-Project", "Openai-Beta"}},
		{Gemini, []string{"Openai-Organization", "Openai-Project", "Openai-Beta", "Anthropic-Version", "Anthropic-Beta"}},
	} {
		if got := tt.p.Descriptor().ForeignHeaders(); !slices.Equal(got, tt.without) {
			t.Errorf("%s: ForeignHeaders = %v, want %v", tt.p, got, tt.without)
		}
	}
	for _, path := range []string{"/v1/models", "/v1beta/models/:generateContent", "/v1beta/models/g:countTokens",
		"/v1/projects/p/locations/l/publishers/anthropic/models/c:generateContent", "generateContent", "/a:b"} {
		if p, _, _, ok := MatchRoute(path); ok {
			t.Errorf("MatchRoute(%q) = %s", path, p)
		}
	}
}
