package codec_test

import (
	"slices"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
)

// TestDescriptors checks that every protocol has a descriptor that names
// it, and that what the descriptors say agrees with the protocols' own
// methods.
func TestDescriptors(t *testing.T) {
	for _, p := range codec.Protocols() {
		d := p.Descriptor()
		if d == nil || d.Name != p {
			t.Fatalf("%s: descriptor %+v", p, d)
		}
		if d.Family.Descriptor() == nil || d.Family.Descriptor().Family != d.Family {
			t.Errorf("%s: family %s is not a family of its own", p, d.Family)
		}
		if d.ModelInPath != (d.Route.Models != "") {
			t.Errorf("%s: ModelInPath %v but route %+v", p, d.ModelInPath, d.Route)
		}
		// A protocol without a route of its own (an upstream only) is
		// recognised as the client protocol of its wire family.
		want := p
		if !slices.Contains(codec.ClientProtocols(), p) {
			want = d.Family
		}
		for _, at := range []codec.Location{{Project: "p", Region: "r"}, {APIVersion: "2024-10-21"}} {
			path, _ := d.UpstreamPath(at, "m", false)
			if got, model, stream, ok := codec.MatchRoute(path); !ok || got != want || stream || d.ModelInPath && model != "m" {
				t.Errorf("%s: its own upstream path %s is recognised as %s, %q, %v, %v", p, path, got, model, stream, ok)
			}
			path, _ = d.UpstreamPath(at, "m", true)
			if got, _, stream, ok := codec.MatchRoute(path); !ok || got != want || stream != d.ModelInPath {
				t.Errorf("%s: its own streaming path %s is recognised as %s, %v, %v", p, path, got, stream, ok)
			}
		}
		for _, a := range d.Alternates {
			if ad := a.Descriptor(); ad == nil || ad.Family == d.Family || !slices.Contains(ad.Alternates, p) {
				t.Errorf("%s: alternate %s is not a protocol of another family that names it back", p, a)
			}
		}
	}
	// Azure OpenAI's paths name their deployment as the model.
	for path, want := range map[string]string{
		"/openai/deployments/gpt-4o/chat/completions": "gpt-4o",
		"/openai/v1/chat/completions":                 "",
		"/deployments/x/chat/completions":             "",
		"/chat/completions":                           "",
	} {
		if got, model, _, ok := codec.MatchRoute(path); !ok || got != codec.OpenAIChat || model != want {
			t.Errorf("MatchRoute(%s) = %s, %q, %v; want openai-chat, %q", path, got, model, ok, want)
		}
	}
	if got, _, _, ok := codec.MatchRoute("/openai/responses"); !ok || got != codec.OpenAIResponses {
		t.Errorf("Azure's versioned Responses path is recognised as %s, %v", got, ok)
	}
	if codec.Protocol("nope").Descriptor() != nil || codec.Protocol("nope").ModelInPath() || codec.Protocol("nope").Family() != "nope" {
		t.Errorf("an unknown protocol has a descriptor")
	}
}

// TestCountAndListing checks the descriptors' token counting and listing
// endpoints.
func TestCountAndListing(t *testing.T) {
	at := codec.Location{Project: "proj", Region: "us-east5"}
	tests := []struct {
		p            codec.Protocol
		count, list  string
		listPageSize string
	}{
		{codec.OpenAIChat, "", "/v1/models", ""},
		{codec.OpenAIResponses, "/v1/responses/input_tokens", "/v1/models", ""},
		{codec.AnthropicMessages, "/v1/messages/count_tokens", "/v1/models", "limit"},
		{codec.Gemini, "/v1beta/models/m:countTokens", "/v1beta/models", "pageSize"},
		{codec.Vertex, "/v1/projects/proj/locations/us-east5/publishers/google/models/m:countTokens", "", ""},
		{codec.VertexAnthropic, "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict", "", ""},
	}
	for _, tt := range tests {
		d := tt.p.Descriptor()
		if got := d.CountPath(at, "m"); got != tt.count || codec.HasTokenCount(tt.p) != (tt.count != "") {
			t.Errorf("%s: count path %q, want %q", tt.p, got, tt.count)
		}
		if d.Listing.Path != tt.list || d.Listing.PageSize != tt.listPageSize || codec.HasModelList(tt.p) != (tt.list != "") {
			t.Errorf("%s: listing %+v", tt.p, d.Listing)
		}
	}
}

// TestUnknownProtocol: every entry point answers an unknown protocol with
// an error, never a nil codec.
func TestUnknownProtocol(t *testing.T) {
	p := codec.Protocol("nope")
	if d, err := codec.NewStreamDecoder(p); d != nil || err == nil {
		t.Errorf("NewStreamDecoder = %v, %v", d, err)
	}
	if e, err := codec.NewStreamEncoder(p, &codec.Request{}); e != nil || err == nil {
		t.Errorf("NewStreamEncoder = %v, %v", e, err)
	}
	if err := codec.DecodeRequest(p, []byte(`{}`), &codec.Request{}); err == nil {
		t.Errorf("DecodeRequest succeeded")
	}
	if _, err := codec.AppendRequest(nil, p, &codec.Request{}, codec.EncodeOptions{}); err == nil {
		t.Errorf("AppendRequest succeeded")
	}
	if err := codec.DecodeResponse(p, []byte(`{}`), &codec.Response{}); err == nil {
		t.Errorf("DecodeResponse succeeded")
	}
	if _, err := codec.AppendResponse(nil, p, &codec.Response{}); err == nil {
		t.Errorf("AppendResponse succeeded")
	}
	if out := codec.AppendStreamError(nil, p, &codec.Request{}, &codec.Error{Message: "x"}); len(out) != 0 {
		t.Errorf("AppendStreamError wrote %q", out)
	}
	if evs := codec.NewUsageObserver(p).Observe(nil, nil, []byte(`{"usage":{}}`), false); len(evs) != 0 {
		t.Errorf("NewUsageObserver observed %v", evs)
	}
}

// TestDescriptorFallbacks: what answers a protocol without the endpoint
// or an unknown protocol gets, and the headers a request to each family
// goes without.
func TestDescriptorFallbacks(t *testing.T) {
	nope := codec.Protocol("nope")
	if got := string(codec.AppendError(nil, nope, &codec.Error{Message: "m"})); got != `{"error":{"message":"m","type":"server_error","param":null,"code":null}}` {
		t.Errorf("AppendError for an unknown protocol = %s", got)
	}
	if got := string(codec.AppendModelList(nil, nope, &codec.ModelList{Models: []codec.ModelInfo{{ID: "x"}}}, codec.ModelListOptions{})); got != `{"object":"list","data":[{"id":"x","object":"model","created":0,"owned_by":""}]}` {
		t.Errorf("AppendModelList for an unknown protocol = %s", got)
	}
	if _, err := codec.DecodeCountResponse(codec.OpenAIChat, []byte(`{"input_tokens":1}`)); err == nil {
		t.Errorf("DecodeCountResponse for openai-chat succeeded")
	}
	if got := string(codec.AppendCountResponse(nil, codec.OpenAIChat, 3)); got != `{"input_tokens":3}` {
		t.Errorf("AppendCountResponse for openai-chat = %s", got)
	}
	if e := codec.DecodeError(nope, 400, []byte(`{"error":{"message":"m","code":"c","param":"p"}}`)); e.Param != "p" || e.Code != "c" {
		t.Errorf("DecodeError for an unknown protocol = %+v", e)
	}
	for _, tt := range []struct {
		p       codec.Protocol
		without []string
	}{
		{codec.OpenAIChat, []string{"Anthropic-Version", "Anthropic-Beta", "Api-Revision"}},
		{codec.OpenAIResponses, []string{"Anthropic-Version", "Anthropic-Beta", "Api-Revision"}},
		{codec.AnthropicMessages, []string{"Openai-Organization", "Openai-Project", "Openai-Beta", "Api-Revision"}},
		{codec.Gemini, []string{"Openai-Organization", "Openai-Project", "Openai-Beta", "Anthropic-Version", "Anthropic-Beta", "Api-Revision"}},
		{interactions.Gemini, []string{"Openai-Organization", "Openai-Project", "Openai-Beta", "Anthropic-Version", "Anthropic-Beta"}},
	} {
		if got := tt.p.Descriptor().ForeignHeaders(); !slices.Equal(got, tt.without) {
			t.Errorf("%s: ForeignHeaders = %v, want %v", tt.p, got, tt.without)
		}
	}
	for _, path := range []string{"/v1/models", "/v1beta/models/:generateContent", "/v1beta/models/g:countTokens",
		"/v1/projects/p/locations/l/publishers/anthropic/models/c:generateContent", "generateContent", "/a:b"} {
		if p, _, _, ok := codec.MatchRoute(path); ok {
			t.Errorf("MatchRoute(%q) = %s", path, p)
		}
	}
}
