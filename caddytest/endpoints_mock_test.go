package caddytest

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The mocks' listing and counting side: each mock answers its provider's
// model listing (GET /v1/models, /v1beta/models; Vertex has none) and
// token counting request (Anthropic count_tokens, Vertex Anthropic
// count-tokens:rawPredict, Gemini and Vertex :countTokens, Responses
// input_tokens; Chat has none), validating each as the provider would.
// Requests are recorded like generation requests; anything else falls
// through to the generation side, which reports a path of another
// endpoint as a violation.

// mockCount is the token count every mock reports.
const mockCount = 42

// mockModels are the model ids each listing mock lists, in order.
var mockModels = map[proto][]string{
	openaiChat:      {"gpt-5", "gpt-5-mini"},
	openaiResponses: {"gpt-5", "gpt-5-mini"},
	anthropicMsgs:   {"claude-sonnet-4-5", "claude-haiku-4-5"},
	gemini:          {"gemini-2.5-flash", "gemini-2.5-pro"},
}

// countFields are the members each protocol's count request may have.
var countFields = map[proto][]string{
	anthropicMsgs: {"model", "messages", "system", "tools", "tool_choice", "thinking", "output_config",
		"cache_control", "context_management", "mcp_servers", "speed"},
	vertexAnthropic: {"anthropic_version", "model", "messages", "system", "tools", "tool_choice", "thinking",
		"output_config", "cache_control"},
	gemini: {"contents", "generateContentRequest"},
	vertex: {"contents", "systemInstruction", "tools", "generationConfig", "model", "instances"},
	openaiResponses: {"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
		"previous_response_id", "conversation", "text", "reasoning", "truncation", "personality"},
	bedrockAnthropic: {"input"},
	bedrockConverse:  {"input"},
}

// endpointOf names the listing or counting endpoint of p that path is, with
// the model a Gemini or Vertex count names: "models", "count" or "".
func (p proto) endpointOf(path string) (kind, model string) {
	vertexBase := "/v1/projects/" + vertexProject + "/locations/" + vertexLocation + "/publishers/"
	switch p {
	case openaiChat:
		if path == "/v1/models" {
			return "models", ""
		}
	case openaiResponses:
		switch path {
		case "/v1/models":
			return "models", ""
		case "/v1/responses/input_tokens":
			return "count", ""
		}
	case anthropicMsgs:
		switch path {
		case "/v1/models":
			return "models", ""
		case "/v1/messages/count_tokens":
			return "count", ""
		}
	case vertexAnthropic:
		if path == vertexBase+"anthropic/models/count-tokens:rawPredict" {
			return "count", ""
		}
	case bedrockAnthropic, bedrockConverse:
		if m, ok := strings.CutPrefix(path, "/model/"); ok {
			if m, ok := strings.CutSuffix(m, "/count-tokens"); ok && m != "" {
				m, _ = url.PathUnescape(m)
				return "count", m
			}
		}
	case gemini, vertex:
		if p == gemini && path == "/v1beta/models" {
			return "models", ""
		}
		prefix := "/v1beta/models/"
		if p == vertex {
			prefix = vertexBase + "google/models/"
		}
		if m, ok := strings.CutPrefix(path, prefix); ok {
			if m, ok := strings.CutSuffix(m, ":countTokens"); ok && m != "" && !strings.ContainsAny(m, "/:") {
				return "count", m
			}
		}
	}
	return "", ""
}

// serveEndpoint answers a listing or counting request and reports whether
// r was one.
func (m *mockUpstream) serveEndpoint(w http.ResponseWriter, r *http.Request) bool {
	kind, model := m.proto.endpointOf(r.URL.Path)
	if kind == "" {
		return false
	}
	body, err := io.ReadAll(r.Body)
	rec := &recordedRequest{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Host: r.Host, Header: r.Header.Clone(), Body: body}
	var problems []string
	if err != nil {
		problems = append(problems, "reading the body failed: "+err.Error())
	}
	if m.proto.isAWS() {
		problems = append(problems, validateAWSCredential(rec)...)
	} else {
		problems = append(problems, validateCredential(m.proto, rec)...)
	}
	if kind == "models" {
		problems = append(problems, validateListing(m.proto, rec)...)
	} else {
		problems = append(problems, validateCount(m.proto, rec, model)...)
	}
	m.mu.Lock()
	m.hits++
	m.last = rec
	for _, p := range problems {
		m.violations = append(m.violations, fmt.Sprintf("%s %s: %s", r.Method, r.URL.RequestURI(), p))
	}
	sc := m.scenario
	m.mu.Unlock()
	switch {
	case len(problems) > 0:
		writeBody(w, false, http.StatusBadRequest, nativeErrorHeader(m.proto, http.StatusBadRequest), nativeError(m.proto, http.StatusBadRequest, "mock "+string(m.proto)+" rejected the request: "+strings.Join(problems, "; ")))
	case sc != nil:
		writeBody(w, false, sc.Status, sc.Header, sc.Body)
	case kind == "models":
		writeBody(w, false, http.StatusOK, nil, mockListing(m.proto))
	default:
		writeBody(w, false, http.StatusOK, nil, mockCountBody(m.proto))
	}
	return true
}

// validateListing checks a model listing request.
func validateListing(p proto, rec *recordedRequest) []string {
	var problems []string
	if rec.Method != http.MethodGet {
		problems = append(problems, "method "+rec.Method+", want GET")
	}
	if len(rec.Body) > 0 {
		problems = append(problems, "a listing request has a body")
	}
	q, _ := url.ParseQuery(rec.RawQuery)
	for k := range q {
		var ok bool
		switch p {
		case anthropicMsgs:
			ok = k == "limit" || k == "after_id" || k == "before_id"
		case gemini:
			ok = k == "pageSize" || k == "pageToken"
		}
		if !ok {
			problems = append(problems, "unexpected query parameter "+k)
		}
	}
	for _, k := range []string{"limit", "pageSize"} {
		if v := q.Get(k); v != "" {
			if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 1000 {
				problems = append(problems, k+" "+v+" is not between 1 and 1000")
			}
		}
	}
	return problems
}

// validateCount checks a token counting request of p; model is the model
// in a Gemini or Vertex path.
func validateCount(p proto, rec *recordedRequest, model string) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if rec.Method != http.MethodPost {
		bad("method %s, want POST", rec.Method)
	}
	if rec.RawQuery != "" {
		bad("unexpected query %q", rec.RawQuery)
	}
	if ct := rec.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		bad("Content-Type %q, want application/json", ct)
	}
	if !gjson.ValidBytes(rec.Body) || !gjson.ParseBytes(rec.Body).IsObject() {
		bad("body is not a JSON object: %.200q", rec.Body)
		return problems
	}
	root := gjson.ParseBytes(rec.Body)
	known := map[string]bool{}
	for _, k := range countFields[p] {
		known[k] = true
	}
	var unknown []string
	root.ForEach(func(k, _ gjson.Result) bool {
		if !known[k.Str] {
			unknown = append(unknown, k.Str)
		}
		return true
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		bad("unknown count fields %q", unknown)
	}
	switch p {
	case anthropicMsgs, vertexAnthropic, openaiResponses:
		if root.Get("model").Str == "" {
			bad("model is required")
		}
		if p == vertexAnthropic && root.Get("anthropic_version").Str != vertexAnthropicVersion {
			bad("anthropic_version %q, want %q", root.Get("anthropic_version").Str, vertexAnthropicVersion)
		}
		if p != openaiResponses && len(root.Get("messages").Array()) == 0 {
			bad("messages must be a non-empty array")
		}
	case gemini:
		contents := root.Get("contents")
		if g := root.Get("generateContentRequest"); g.Exists() {
			if contents.Exists() {
				bad("contents and generateContentRequest are exclusive")
			}
			if g.Get("model").Str != "models/"+model {
				bad("generateContentRequest.model %q, want %q", g.Get("model").Str, "models/"+model)
			}
			contents = g.Get("contents")
		}
		if len(contents.Array()) == 0 {
			bad("contents must be a non-empty array")
		}
	case vertex:
		if len(root.Get("contents").Array()) == 0 {
			bad("contents must be a non-empty array")
		}
	case bedrockConverse:
		// CountTokens counts Converse input: its messages, system
		// prompt, tools and model fields.
		c := root.Get("input.converse")
		if !c.IsObject() {
			bad("input.converse must be an object")
			break
		}
		c.ForEach(func(k, _ gjson.Result) bool {
			switch k.Str {
			case "messages", "system", "toolConfig", "additionalModelRequestFields":
			default:
				bad("unknown field input.converse.%s", k.Str)
			}
			return true
		})
		if len(c.Get("messages").Array()) == 0 {
			bad("input.converse.messages must be a non-empty array")
		}
	case bedrockAnthropic:
		// CountTokens counts an InvokeModel body, which Bedrock checks
		// as it would for InvokeModel.
		gen, err := base64.StdEncoding.DecodeString(root.Get("input.invokeModel.body").Str)
		switch {
		case err != nil || len(gen) == 0:
			bad("input.invokeModel.body must be a base64 InvokeModel body (%v)", err)
		case !gjson.ValidBytes(gen):
			bad("input.invokeModel.body is not JSON")
		default:
			problems = append(problems, validateBedrockBody(gjson.ParseBytes(gen))...)
			if len(gjson.GetBytes(gen, "messages").Array()) == 0 {
				bad("messages must be a non-empty array")
			}
		}
	}
	return problems
}

// mockListing is p's listing of mockModels[p].
func mockListing(p proto) string {
	ids := mockModels[p]
	var b strings.Builder
	switch p {
	case anthropicMsgs:
		b.WriteString(`{"data":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"model","id":%q,"display_name":%q,"created_at":"2025-09-29T00:00:00Z"}`, id, "Display "+id)
		}
		fmt.Fprintf(&b, `],"has_more":false,"first_id":%q,"last_id":%q}`, ids[0], ids[len(ids)-1])
	case gemini:
		b.WriteString(`{"models":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":%q,"version":"001","displayName":%q,"inputTokenLimit":1048576,"outputTokenLimit":65536,"supportedGenerationMethods":["generateContent","countTokens"]}`, "models/"+id, "Display "+id)
		}
		b.WriteString(`]}`)
	default:
		b.WriteString(`{"object":"list","data":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%q,"object":"model","created":1754425777,"owned_by":"system"}`, id)
		}
		b.WriteString(`]}`)
	}
	return b.String()
}

// mockCountBody is p's token counting answer of mockCount tokens.
func mockCountBody(p proto) string {
	switch p {
	case gemini:
		return `{"totalTokens":` + strconv.Itoa(mockCount) + `,"promptTokensDetails":[{"modality":"TEXT","tokenCount":` + strconv.Itoa(mockCount) + `}]}`
	case vertex:
		return `{"totalTokens":` + strconv.Itoa(mockCount) + `,"totalBillableCharacters":17,"promptTokensDetails":[{"modality":"TEXT","tokenCount":` + strconv.Itoa(mockCount) + `}]}`
	case openaiResponses:
		return `{"object":"response.input_tokens","input_tokens":` + strconv.Itoa(mockCount) + `}`
	case bedrockAnthropic, bedrockConverse:
		return `{"inputTokens":` + strconv.Itoa(mockCount) + `}`
	}
	return `{"input_tokens":` + strconv.Itoa(mockCount) + `}`
}
