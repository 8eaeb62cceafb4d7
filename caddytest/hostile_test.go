package caddytest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// unknownPaths are, per client protocol, a POST the client's API has but
// llmbridge does not serve, and the error format the answer must use.
var unknownPaths = map[proto]struct {
	path   string
	format proto
}{
	openaiChat:       {"/v1/embeddings", openaiChat},
	openaiResponses:  {"/v1/responses/resp_123/cancel", openaiChat},
	anthropicMsgs:    {"/v1/complete", anthropicMsgs},
	gemini:           {"/v1beta/models/gemini-2.5-flash:embedContent", gemini},
	vertex:           {"/v1/projects/" + clientProject + "/locations/" + vertexLocation + "/publishers/google/models/gemini-2.5-flash:predict", vertex},
	vertexAnthropic:  {"/v1/projects/" + clientProject + "/locations/" + vertexLocation + "/publishers/anthropic/models/claude-sonnet-4-5:predict", vertexAnthropic},
	bedrockConverse:  {"/model/anthropic.claude-sonnet-4-5-v1%3A0/converse-async", bedrockConverse},
	bedrockAnthropic: {"/model/anthropic.claude-sonnet-4-5-v1%3A0/invoke-async", bedrockAnthropic},
	// Cancelling a background interaction, which only Google runs.
	geminiInteractions: {"/v1beta/interactions/v1_itest/cancel", geminiInteractions},
	vertexInteractions: {"/v1beta1/projects/" + clientProject + "/locations/" + vertexLocation + "/interactions/v1_itest/cancel", geminiInteractions},
}

// crossUpstream is, per client protocol, the upstream of another wire
// family that the catalogue translates to.
var crossUpstream = map[proto]proto{
	openaiChat:         anthropicMsgs,
	openaiResponses:    gemini,
	anthropicMsgs:      openaiChat,
	gemini:             anthropicMsgs,
	vertex:             openaiResponses,
	vertexAnthropic:    vertex,
	bedrockConverse:    anthropicMsgs,
	bedrockAnthropic:   openaiResponses,
	geminiInteractions: anthropicMsgs,
	vertexInteractions: openaiResponses,
}

// sameUpstream is, per client protocol, the upstream of the same wire
// family (passthrough): the protocol itself, or its Vertex sibling.
var sameUpstream = map[proto]proto{
	bedrockConverse:    bedrockConverse,
	openaiChat:         openaiChat,
	openaiResponses:    openaiResponses,
	anthropicMsgs:      vertexAnthropic,
	vertexAnthropic:    anthropicMsgs,
	bedrockAnthropic:   anthropicMsgs,
	gemini:             vertex,
	vertex:             gemini,
	geminiInteractions: vertexInteractions,
	vertexInteractions: geminiInteractions,
}

// hostileLimit is how long any hostile request may take to be answered.
const hostileLimit = 2 * time.Second

// hostileCase is one entry of the catalogue.
type hostileCase struct {
	name string
	// body is the request body a client of cp sends; nil from it skips cp.
	body func(cp proto, model string) []byte
	// want is the status for the translation path (cross-family upstream).
	// A 2xx means the request must reach the upstream (once) and be
	// answered from the mock; a 4xx means the client's error format and no
	// upstream call.
	want int
	// ptWant is the same for the passthrough path (same-family upstream);
	// 0 means the case does not apply there (llmbridge forwards the body
	// byte for byte and leaves its validation to the provider).
	ptWant int
	// upstream, when set, replaces crossUpstream for the translation path.
	upstream func(cp proto) proto
	// small sends to the site with max_request_body 1KiB (openai-chat
	// upstream) instead of the upstream's plain site.
	small bool
	// send replaces the plain POST of body (method, path, transport).
	send func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse
	// calls is the number of upstream calls a rejected case expects
	// (0 unless send makes a healthy request of its own).
	calls int
	// check adds case-specific assertions on a forwarded request: sent is
	// the client's body, rec what the upstream up received.
	check func(t *testing.T, name string, up proto, sent []byte, rec *recordedRequest)
	// rejectOK accepts, instead of want/ptWant, a 400 in the client's format
	// without any upstream call (for input that is as correct to refuse as
	// to resolve).
	rejectOK bool
	// bug describes a known llmbridge defect the case exposes; it is
	// repeated in the failure so the report is readable.
	bug string
	// limit overrides hostileLimit.
	limit time.Duration
	// providerRejects reports, for a passthrough case forwarded (ptWant
	// 2xx), that the mock of upstream up checks what llmbridge forwards
	// unchanged as its provider does and rejects it: the body reaches it
	// once and its 400 comes back.
	providerRejects func(up proto) bool
}

// convField is where protocol p's conversation lives in a request.
func convField(p proto) string {
	switch p {
	case openaiResponses:
		return "input"
	case gemini, vertex:
		return "contents"
	case geminiInteractions, vertexInteractions:
		return "input"
	}
	return "messages"
}

// requestWith is a non-streaming request of client protocol p for model
// whose conversation is the raw JSON conv, with raw members extra
// (",\"k\":v...") appended.
func requestWith(p proto, model, conv, extra string) []byte {
	switch p {
	case openaiChat:
		return []byte(`{"model":"` + model + `","messages":` + conv + `,"max_completion_tokens":16` + extra + `}`)
	case openaiResponses:
		return []byte(`{"model":"` + model + `","input":` + conv + `,"max_output_tokens":16` + extra + `}`)
	case anthropicMsgs:
		return []byte(`{"model":"` + model + `","max_tokens":16,"messages":` + conv + extra + `}`)
	case vertexAnthropic:
		return []byte(`{"anthropic_version":"` + vertexAnthropicVersion + `","max_tokens":16,"messages":` + conv + extra + `}`)
	case bedrockAnthropic:
		return []byte(`{"anthropic_version":"` + bedrockAnthropicVersion + `","max_tokens":16,"messages":` + conv + extra + `}`)
	case bedrockConverse:
		return []byte(`{"messages":` + conv + `,"inferenceConfig":{"maxTokens":16}` + extra + `}`)
	case gemini, vertex:
		return []byte(`{"contents":` + conv + `,"generationConfig":{"maxOutputTokens":16}` + extra + `}`)
	case geminiInteractions, vertexInteractions:
		return []byte(`{"model":"` + model + `","input":` + conv + `,"generation_config":{"max_output_tokens":16}` + extra + `}`)
	}
	panic("unknown protocol " + string(p))
}

// message is one message of p with role and raw JSON content (Gemini's
// parts); Gemini calls the assistant "model"; an Interactions message is a
// step (interactionsMessage).
func message(p proto, role, content string) string {
	if p.isInteractions() {
		return interactionsMessage(role, content)
	}
	if p.isGoogle() {
		if role == "assistant" {
			role = "model"
		}
		return `{"role":"` + role + `","parts":` + content + `}`
	}
	return `{"role":"` + role + `","content":` + content + `}`
}

// hiMessage is a valid user message saying "Hi".
func hiMessage(p proto) string {
	if p.blockContent() {
		return message(p, "user", `[{"text":"Hi"}]`)
	}
	return message(p, "user", `"Hi"`)
}

// withContent is a request with one user message whose content (parts) is
// the raw JSON content.
func withContent(p proto, model, content string) []byte {
	return requestWith(p, model, "["+message(p, "user", content)+"]", "")
}

// textPart is a text content part of p whose text is the raw JSON text.
func textPart(p proto, text string) string {
	switch {
	case p == openaiResponses:
		return `{"type":"input_text","text":` + text + `}`
	case p.blockContent():
		return `{"text":` + text + `}`
	}
	return `{"type":"text","text":` + text + `}`
}

// withText is a request with one user message of one text part.
func withText(p proto, model, text string) []byte {
	return withContent(p, model, "["+textPart(p, text)+"]")
}

// nested is depth nested arrays around 1.
func nested(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// manyMessages is a conversation of n messages alternating user and
// assistant, starting (and, for odd n, ending) with the user.
func manyMessages(p proto, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		text := jsonString(fmt.Sprintf("message %d", i))
		if p.blockContent() {
			b.WriteString(message(p, role, `[{"text":`+text+`}]`))
		} else {
			b.WriteString(message(p, role, text))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// manyTools is the raw ",\"tools\":..." member declaring n function tools
// in p's form.
func manyTools(p proto, n int) string {
	params := `{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}`
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		name := fmt.Sprintf(`"tool_%d"`, i)
		switch {
		case p == openaiChat:
			b.WriteString(`{"type":"function","function":{"name":` + name + `,"description":"d","parameters":` + params + `}}`)
		case p == openaiResponses || p.isInteractions():
			b.WriteString(`{"type":"function","name":` + name + `,"description":"d","parameters":` + params + `}`)
		case p.isAnthropic():
			b.WriteString(`{"name":` + name + `,"description":"d","input_schema":` + params + `}`)
		case p == bedrockConverse:
			b.WriteString(`{"toolSpec":{"name":` + name + `,"description":"d","inputSchema":{"json":` + params + `}}}`)
		default:
			b.WriteString(`{"name":` + name + `,"description":"d","parameters":` + params + `}`)
		}
	}
	if p.isGoogle() {
		return `,"tools":[{"functionDeclarations":[` + b.String() + `]}]`
	}
	if p == bedrockConverse {
		return `,"toolConfig":{"tools":[` + b.String() + `]}`
	}
	return `,"tools":[` + b.String() + `]`
}

// sendMethod sends body with method instead of POST.
func sendMethod(method string) func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
	return func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
		return do(t, newClientRequest(t, method, base, cp, model, body))
	}
}

// hostileCatalogue is every hostile request, with what llmbridge must
// answer on the translation and the passthrough path.
func hostileCatalogue() []hostileCase {
	minimal := func(cp proto, model string) []byte { return minimalBody(cp, model) }
	constant := func(s string) func(proto, string) []byte {
		return func(proto, string) []byte { return []byte(s) }
	}
	bad := http.StatusBadRequest
	return []hostileCase{
		// Framing.
		{name: "empty body", body: constant(""), want: bad, ptWant: bad},
		{name: "whitespace only", body: constant(" \t\r\n  \n"), want: bad, ptWant: bad},
		{name: "malformed JSON", body: constant(`{"model" "gpt-4o", messages: []}`), want: bad, ptWant: bad},
		{name: "truncated JSON", body: func(cp proto, model string) []byte {
			b := minimalBody(cp, model)
			return b[:len(b)-7]
		}, want: bad, ptWant: bad},
		{name: "trailing garbage", body: func(cp proto, model string) []byte {
			return append(minimalBody(cp, model), `{"x":1}`...)
		}, want: bad, ptWant: bad},
		{name: "UTF-8 BOM before JSON", body: func(cp proto, model string) []byte {
			return append([]byte("\xef\xbb\xbf"), minimalBody(cp, model)...)
		}, want: bad, ptWant: bad},

		// Wrong JSON type at every level.
		{name: "top level array", body: func(cp proto, model string) []byte {
			return []byte("[" + string(minimalBody(cp, model)) + "]")
		}, want: bad, ptWant: bad},
		{name: "top level string", body: constant(`"Hi"`), want: bad, ptWant: bad},
		{name: "top level number", body: constant(`42`), want: bad, ptWant: bad},
		{name: "top level null", body: constant(`null`), want: bad, ptWant: bad},
		{name: "conversation is an object", body: func(cp proto, model string) []byte {
			if cp.isInteractions() {
				// One step or one content object is an input there; an
				// object of neither kind is not.
				return requestWith(cp, model, `{"role":"user","content":"Hi"}`, "")
			}
			return requestWith(cp, model, hiMessage(cp), "")
		}, want: bad},
		{name: "conversation is a number", body: func(cp proto, model string) []byte {
			return requestWith(cp, model, `42`, "")
		}, want: bad},
		{name: "message is a string", body: func(cp proto, model string) []byte {
			return requestWith(cp, model, `["Hi"]`, "")
		}, want: bad},
		{name: "message is a number", body: func(cp proto, model string) []byte {
			return requestWith(cp, model, `[42]`, "")
		}, want: bad},
		{name: "content is a number", body: func(cp proto, model string) []byte {
			return withContent(cp, model, `42`)
		}, want: bad},
		{name: "content is an object", body: func(cp proto, model string) []byte {
			return withContent(cp, model, `{"text":"Hi"}`)
		}, want: bad},
		{name: "part is a number", body: func(cp proto, model string) []byte {
			return withContent(cp, model, `[42]`)
		}, want: bad},
		{name: "part is an array", body: func(cp proto, model string) []byte {
			return withContent(cp, model, `[["Hi"]]`)
		}, want: bad},
		{name: "text is a number", body: func(cp proto, model string) []byte {
			return withText(cp, model, `123`)
		}, want: bad},
		{name: "text is an object", body: func(cp proto, model string) []byte {
			return withText(cp, model, `{"value":"Hi"}`)
		}, want: bad},
		{name: "model is a number", body: func(cp proto, model string) []byte {
			if cp.modelInPath() {
				return nil
			}
			return bytes.Replace(minimalBody(cp, model), []byte(`"`+model+`"`), []byte(`42`), 1)
		}, want: bad},
		{name: "stream is a string", body: func(cp proto, model string) []byte {
			if cp.modelInPath() {
				return nil
			}
			return requestWith(cp, model, "["+hiMessage(cp)+"]", `,"stream":"yes"`)
		}, want: bad},
		{name: "model escapes the upstream path", body: func(cp proto, model string) []byte {
			if cp.modelInPath() {
				return nil
			}
			return bytes.Replace(minimalBody(cp, model), []byte(`"`+model+`"`), []byte(`"../../v1/evil"`), 1)
		}, upstream: func(proto) proto { return gemini }, want: bad},

		// Depth and size.
		{name: "10000-deep nesting in content", body: func(cp proto, model string) []byte {
			return withContent(cp, model, nested(10000))
		}, want: bad, ptWant: http.StatusOK, providerRejects: func(up proto) bool {
			// Bedrock checks that every content block is an object of
			// one member.
			return up == bedrockConverse
		}},
		{name: "10000-deep nesting in an unknown field", body: func(cp proto, model string) []byte {
			return requestWith(cp, model, "["+hiMessage(cp)+"]", `,"x_unknown":`+nested(10000))
		}, want: bad},
		{name: "10000-deep nesting in an unknown message field", body: func(cp proto, model string) []byte {
			msg := strings.TrimSuffix(hiMessage(cp), "}") + `,"x_unknown":` + nested(10000) + `}`
			return requestWith(cp, model, "["+msg+"]", "")
		}, want: bad, ptWant: http.StatusOK},
		{name: "body over max_request_body", small: true, body: func(cp proto, model string) []byte {
			return oversizedBody(cp, model, smallBodyLimit+1)
		}, want: http.StatusRequestEntityTooLarge},
		{name: "chunked body over max_request_body", small: true, body: func(cp proto, model string) []byte {
			return oversizedBody(cp, model, smallBodyLimit+1)
		}, send: func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
			req := newClientRequest(t, http.MethodPost, base, cp, model, nil)
			req.Header.Set("Content-Type", "application/json")
			req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:100]), bytes.NewReader(body[100:])))
			req.ContentLength = -1
			return do(t, req)
		}, want: http.StatusRequestEntityTooLarge},
		{name: "body just under max_request_body", small: true, body: func(cp proto, model string) []byte {
			return oversizedBody(cp, model, smallBodyLimit-len(minimalBody(cp, model))-8)
		}, want: http.StatusOK},
		{name: "5 MB text under the limit", body: func(cp proto, model string) []byte {
			return withText(cp, model, `"`+strings.Repeat("abcdefghij", 500_000)+`"`)
		}, want: http.StatusOK, ptWant: http.StatusOK,
			check: func(t *testing.T, name string, up proto, sent []byte, rec *recordedRequest) {
				if !bytes.Contains(rec.Body, []byte(strings.Repeat("abcdefghij", 500_000))) {
					t.Errorf("%s: the upstream did not receive the 5 MB text (body %d bytes)", name, len(rec.Body))
				}
			}},
		{name: "5001 messages", body: func(cp proto, model string) []byte {
			return requestWith(cp, model, manyMessages(cp, 5001), "")
		}, want: http.StatusOK, ptWant: http.StatusOK},
		{name: "2000 tools", body: func(cp proto, model string) []byte {
			return requestWith(cp, model, "["+hiMessage(cp)+"]", manyTools(cp, 2000))
		}, want: http.StatusOK, ptWant: http.StatusOK},

		// Contents.
		{name: "invalid UTF-8 in text", body: func(cp proto, model string) []byte {
			return withText(cp, model, "\"bad \xff\xfe\xc3 bytes\"")
		}, want: http.StatusOK,
			check: func(t *testing.T, name string, up proto, sent []byte, rec *recordedRequest) {
				if !utf8.Valid(rec.Body) {
					t.Errorf("%s: the translated upstream body is not valid UTF-8: %q", name, rec.Body)
				}
			}},
		{name: "raw NUL byte in text", body: func(cp proto, model string) []byte {
			return withText(cp, model, "\"nul \x00 byte\"")
		}, want: bad, ptWant: bad},
		{name: "escaped NUL in text", body: func(cp proto, model string) []byte {
			return withText(cp, model, `"nul \u0000 byte"`)
		}, want: http.StatusOK, ptWant: http.StatusOK},
		{name: "lone surrogate escape in text", body: func(cp proto, model string) []byte {
			return withText(cp, model, `"half \ud800 pair"`)
		}, want: http.StatusOK,
			check: func(t *testing.T, name string, up proto, sent []byte, rec *recordedRequest) {
				if !utf8.Valid(rec.Body) {
					t.Errorf("%s: the translated upstream body is not valid UTF-8: %q", name, rec.Body)
				}
			}},
		{name: "duplicate model key", body: func(cp proto, model string) []byte {
			if cp.modelInPath() {
				return nil
			}
			return bytes.Replace(minimalBody(cp, model), []byte(`"model":"`+model+`"`), []byte(`"model":"`+model+`","model":"other-model"`), 1)
		}, want: http.StatusOK, ptWant: http.StatusOK, rejectOK: true, check: checkDuplicateModel,
			bug: "passthrough to a model-in-path upstream routes by the FIRST model and leaves the second in the body"},
		{name: "duplicate conversation key", body: func(cp proto, model string) []byte {
			first := "[" + message(cp, "user", textContent(cp, "first-copy")) + "]"
			second := "[" + message(cp, "user", textContent(cp, "second-copy")) + "]"
			return requestWith(cp, model, first, `,"`+convField(cp)+`":`+second)
		}, want: http.StatusOK, rejectOK: true, check: checkLastWins,
			bug: "the Anthropic decoder concatenates duplicate messages arrays instead of taking the last"},
		{name: "unknown content part type", body: func(cp proto, model string) []byte {
			if cp.blockContent() {
				return withContent(cp, model, `[{"hologram":{"data":"x"}}]`)
			}
			return withContent(cp, model, `[{"type":"hologram","hologram":{"data":"x"}}]`)
		}, want: bad},
		{name: "tool result for an unknown call id", body: func(cp proto, model string) []byte {
			switch {
			case cp == openaiChat:
				return requestWith(cp, model, `[{"role":"user","content":"Hi"},{"role":"tool","tool_call_id":"call_unknown","content":"42"}]`, "")
			case cp == openaiResponses:
				return requestWith(cp, model, `[{"role":"user","content":"Hi"},{"type":"function_call_output","call_id":"call_unknown","output":"42"}]`, "")
			case cp.isAnthropic():
				return requestWith(cp, model, `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_unknown","content":"42"}]}]`, "")
			case cp == bedrockConverse:
				return requestWith(cp, model, `[{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_unknown","content":[{"text":"42"}]}}]}]`, "")
			}
			return nil // Gemini matches results by name; its upstream is passthrough
		}, upstream: func(proto) proto { return gemini }, want: bad},
		{name: "bad base64 image", body: func(cp proto, model string) []byte {
			const junk = `!!not*base64~~`
			switch {
			case cp == openaiChat:
				return withContent(cp, model, `[{"type":"image_url","image_url":{"url":"data:image/png;base64,`+junk+`"}}]`)
			case cp == openaiResponses:
				return withContent(cp, model, `[{"type":"input_image","image_url":"data:image/png;base64,`+junk+`"}]`)
			case cp.isAnthropic():
				return withContent(cp, model, `[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+junk+`"}}]`)
			case cp == bedrockConverse:
				return withContent(cp, model, `[{"image":{"format":"png","source":{"bytes":"`+junk+`"}}}]`)
			}
			return withContent(cp, model, `[{"inlineData":{"mimeType":"image/png","data":"`+junk+`"}}]`)
		}, want: bad, bug: "image data is copied without checking it is base64: the upstream is called and must reject it"},

		// Method, path and framing of the HTTP request.
		{name: "GET", body: minimal, send: sendMethod(http.MethodGet), want: http.StatusMethodNotAllowed, ptWant: http.StatusMethodNotAllowed},
		{name: "PUT", body: minimal, send: sendMethod(http.MethodPut), want: http.StatusMethodNotAllowed, ptWant: http.StatusMethodNotAllowed},
		{name: "DELETE", body: minimal, send: sendMethod(http.MethodDelete), want: http.StatusMethodNotAllowed, ptWant: http.StatusMethodNotAllowed},
		{name: "unknown path under a known prefix", body: minimal, send: func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
			req := newClientRequest(t, http.MethodPost, base, cp, model, body)
			req.URL.Path = unknownPaths[cp].path
			return do(t, req)
		}, want: http.StatusNotFound, ptWant: http.StatusNotFound},
		{name: "gzip-encoded body", body: minimal, send: func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			_, _ = zw.Write(body)
			_ = zw.Close()
			req := newClientRequest(t, http.MethodPost, base, cp, model, buf.Bytes())
			req.Header.Set("Content-Encoding", "gzip")
			return do(t, req)
		}, want: bad, ptWant: bad},
		{name: "Content-Length shorter than the body", body: minimal, send: sendLyingLength(-10),
			want: bad, ptWant: bad, limit: 5 * time.Second},
		{name: "Content-Length longer than the body", body: minimal, send: sendLyingLength(+100),
			want: bad, ptWant: bad, calls: 1, limit: 5 * time.Second},
	}
}

// sendLyingLength sends body over a raw TCP connection with a
// Content-Length off by delta. A longer one is followed, while the server
// waits for the missing bytes, by a healthy request on another connection
// (which must be answered promptly: the server is not stuck), then by
// closing the lying connection's write side.
func sendLyingLength(delta int) func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
	return func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
		t.Helper()
		req := newClientRequest(t, http.MethodPost, base, cp, model, body)
		conn, err := net.DialTimeout("tcp", req.URL.Host, 2*time.Second)
		if err != nil {
			t.Fatalf("dialing %s: %v", req.URL.Host, err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(4 * time.Second))
		var head bytes.Buffer
		fmt.Fprintf(&head, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", req.URL.RequestURI(), req.URL.Host, len(body)+delta)
		for k, vs := range req.Header {
			for _, v := range vs {
				fmt.Fprintf(&head, "%s: %s\r\n", k, v)
			}
		}
		head.WriteString("\r\n")
		if _, err := conn.Write(append(head.Bytes(), body...)); err != nil {
			t.Fatalf("writing the request: %v", err)
		}
		if delta > 0 {
			healthy := do(t, newClientRequest(t, http.MethodPost, base, cp, model, minimalBody(cp, model)))
			if healthy.Status != http.StatusOK {
				t.Errorf("a request beside a connection waiting for its body: status %d, want 200; body %s", healthy.Status, healthy.Body)
			}
			if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
				t.Fatalf("closing the write side: %v", err)
			}
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("reading the answer to a Content-Length off by %d: %v", delta, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("reading the answer body: %v", err)
		}
		return rawResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}
	}
}

// TestHostileRequests runs the hostile catalogue for every client protocol
// against a cross-family upstream (translation) and, where the case
// applies, a same-family one (passthrough). Every rejection must be a 4xx
// in the client's own error format with no upstream call; every accepted
// request must reach the upstream once; nothing may take over 2 s.
func TestHostileRequests(t *testing.T) {
	env := setup(t)
	for _, hc := range hostileCatalogue() {
		t.Run(strings.ReplaceAll(hc.name, " ", "_"), func(t *testing.T) {
			for _, cp := range allProtocols {
				model := cp.defaultModel()
				body := hc.body(cp, model)
				if body == nil {
					continue
				}
				up := crossUpstream[cp]
				if hc.upstream != nil {
					up = hc.upstream(cp)
				}
				runHostile(t, env, hc, cp, up, hc.want, body)
				if hc.ptWant != 0 && !hc.small {
					runHostile(t, env, hc, cp, sameUpstream[cp], hc.ptWant, body)
				}
			}
		})
	}
}

func runHostile(t *testing.T, env *testEnv, hc hostileCase, cp, up proto, want int, body []byte) {
	path := "translate"
	if cp.family() == up.family() {
		path = "passthrough"
	}
	base := env.plain[up]
	if hc.small {
		base, up = env.small, openaiChat
	}
	t.Run(pairName(cp, up)+"_"+path, func(t *testing.T) {
		env.mocks.resetAll(t)
		name := hc.name + " " + pairName(cp, up) + " (" + path + ")"
		model := cp.defaultModel()
		send := hc.send
		if send == nil {
			send = func(t *testing.T, base string, cp proto, model string, body []byte) rawResponse {
				return do(t, newClientRequest(t, http.MethodPost, base, cp, model, body))
			}
		}
		limit := hc.limit
		if limit == 0 {
			limit = hostileLimit
		}
		start := time.Now()
		resp := send(t, base, cp, model, body)
		if d := time.Since(start); d > limit {
			t.Errorf("%s: answered in %v, want under %v", name, d.Round(time.Millisecond), limit)
		}
		if resp.Status >= 500 {
			t.Errorf("%s: server error %d; body %.300s", name, resp.Status, resp.Body)
		}

		calls := 0
		var last *recordedRequest
		for _, p := range allProtocols {
			rec, n := env.mocks[p].lastRequest()
			calls += n
			if n > 0 {
				last = rec
			}
		}
		if hc.bug != "" {
			defer func() {
				if t.Failed() {
					t.Logf("%s: known defect: %s", name, hc.bug)
				}
			}()
		}
		if hc.rejectOK && resp.Status == http.StatusBadRequest && calls == 0 {
			want = http.StatusBadRequest
		}
		if want >= 200 && want < 300 && path == "passthrough" && hc.providerRejects != nil && hc.providerRejects(up) {
			if resp.Status != http.StatusBadRequest || calls != 1 {
				t.Errorf("%s: HTTP status %d after %d upstream calls, want the provider's 400 after one; body %.300s", name, resp.Status, calls, resp.Body)
			}
			env.mocks[up].takeViolations()
			return
		}
		if want >= 200 && want < 300 {
			if resp.Status != want {
				t.Errorf("%s: HTTP status %d, want %d (forwarded); body %.300s", name, resp.Status, want, resp.Body)
			}
			if rec, n := env.mocks[up].lastRequest(); n != 1 {
				t.Errorf("%s: the %s upstream was called %d times, want once", name, up, n)
			} else if hc.check != nil {
				hc.check(t, name, up, body, rec)
			}
			return
		}
		format := cp
		if resp.Status == http.StatusNotFound && hc.send != nil && strings.HasPrefix(hc.name, "unknown path") {
			format = unknownPaths[cp].format
		}
		assertErrorFormat(t, name, format, want, resp)
		if want == http.StatusMethodNotAllowed {
			if allow := resp.Header.Get("Allow"); allow != http.MethodPost {
				t.Errorf("%s: Allow header = %q, want POST", name, allow)
			}
		}
		if calls != hc.calls {
			t.Errorf("%s: %d upstream call(s) (last %s %s %.200s), want %d", name, calls, last.Method, last.Path, last.Body, hc.calls)
		}
	})
}

// textContent is a message content (Gemini parts, Converse blocks) of one
// text.
func textContent(p proto, text string) string {
	if p.blockContent() {
		return `[{"text":` + jsonString(text) + `}]`
	}
	return jsonString(text)
}

// checkDuplicateModel checks a request whose body names "model" twice, the
// second time "other-model". Decoders that re-encode must resolve it as
// encoding/json and the providers' parsers do: the last wins. A
// passthrough to an upstream with the model in the path must route to that
// same model and leave no model in the body; to one with the model in the
// body it must pass the bytes unchanged (the provider resolves them).
func checkDuplicateModel(t *testing.T, name string, up proto, sent []byte, rec *recordedRequest) {
	n := bytes.Count(rec.Body, []byte(`"model":`))
	switch {
	case up.modelInPath():
		if got := rec.model(up); got != "other-model" {
			t.Errorf("%s: the upstream path names model %q, want %q (the last of the duplicates); body %s", name, got, "other-model", rec.Body)
		}
		if n != 0 {
			t.Errorf("%s: the upstream body still names a model (%d times), and not the one in the path: %s", name, n, rec.Body)
		}
	case n == 2:
		if !bytes.Equal(rec.Body, sent) {
			t.Errorf("%s: a passthrough with duplicate keys was altered: %s", name, rec.Body)
		}
	default:
		if got := gjson.GetBytes(rec.Body, "model").Str; got != "other-model" || n != 1 {
			t.Errorf("%s: the upstream was asked for model %q (%d model members), want only %q; body %s", name, got, n, "other-model", rec.Body)
		}
	}
}

// checkLastWins checks that of two duplicate conversation members only the
// last ("second-copy") reached the upstream.
func checkLastWins(t *testing.T, name string, up proto, sent []byte, rec *recordedRequest) {
	if bytes.Contains(rec.Body, []byte("first-copy")) || !bytes.Contains(rec.Body, []byte("second-copy")) {
		t.Errorf("%s: want only the last of the duplicate conversations upstream, got %s", name, rec.Body)
	}
}

// oversizedBody is a valid request of protocol p whose user text makes it
// at least size bytes long.
func oversizedBody(p proto, model string, size int) []byte {
	b := minimalBody(p, model)
	pad := strings.Repeat("x", size)
	return bytes.Replace(b, []byte(`"Hi"`), []byte(`"Hi `+pad+`"`), 1)
}
