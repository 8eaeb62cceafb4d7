package observe

import (
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/llmbridge/llmbridge/codec"
)

// DefaultOTelContentMax bounds the prompt and completion text a span
// records when otel_content is on and no bound is configured.
const DefaultOTelContentMax = 16 << 10

// minPartCost is what each recorded part takes from the bound, whatever
// its text, so that a conversation of many empty parts is bounded too.
const minPartCost = 16

// contentCapture collects the prompt and the completion of one exchange
// for the attributes gen_ai.system_instructions, gen_ai.input.messages and
// gen_ai.output.messages, in the semantic conventions' JSON shapes. The
// text of all three together stays within limit bytes: a text is cut at
// the bound, later parts are left out, and llmbridge.content.truncated
// says so. It exists only when the operator turned otel_content on and the
// request's span records; a stream then appends its text deltas here.
type contentCapture struct {
	limit, used int
	truncated   bool

	system []msgPart
	input  []chatMessage
	output []msgPart
	// open maps a stream's part index to its place in output.
	open map[int]int
}

// chatMessage is one message of gen_ai.input.messages or
// gen_ai.output.messages.
type chatMessage struct {
	Role         string    `json:"role"`
	Parts        []msgPart `json:"parts"`
	FinishReason string    `json:"finish_reason,omitempty"`
}

// msgPart is one part of a message in the conventions' shape: text,
// reasoning, tool_call, tool_call_response, and for media blob (inline
// base64 content) or uri (a URL).
type msgPart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  string          `json:"response,omitempty"`
	Modality  string          `json:"modality,omitempty"`
	MimeType  string          `json:"mime_type,omitempty"`
	URI       string          `json:"uri,omitempty"`
}

// take returns as much of s as the bound leaves, and whether a part may
// be recorded at all.
func (c *contentCapture) take(s string) (string, bool) {
	if c.used >= c.limit {
		c.truncated = true
		return "", false
	}
	c.used += minPartCost
	if room := c.limit - c.used; len(s) > room {
		s = s[:max(room, 0)]
		c.truncated = true
	}
	c.used += len(s)
	// The text may alias a pooled buffer; the span keeps it.
	return strings.Clone(s), true
}

// part converts a canonical part, or reports that the bound is reached.
func (c *contentCapture) part(p *codec.Part) (msgPart, bool) {
	var m msgPart
	ok := true
	switch p.Type {
	case codec.PartText, codec.PartRefusal:
		m.Type = "text"
		m.Content, ok = c.take(p.TextValue())
	case codec.PartReasoning:
		m.Type = "reasoning"
		m.Content, ok = c.take(p.TextValue())
	case codec.PartToolCall, codec.PartServerToolCall:
		m.Type, m.ID, m.Name = "tool_call", strings.Clone(p.ToolCallID), strings.Clone(p.ToolName)
		var args string
		if args, ok = c.take(p.ArgumentsValue()); ok && json.Valid([]byte(args)) {
			m.Arguments = json.RawMessage(args)
		}
	case codec.PartToolResult, codec.PartServerToolResult:
		m.Type, m.ID = "tool_call_response", strings.Clone(p.ToolCallID)
		var text []byte
		for i := range p.Content {
			text = append(text, p.Content[i].TextValue()...)
		}
		m.Response, ok = c.take(string(text))
	default:
		m.Modality, m.MimeType = modality(p), strings.Clone(p.MediaType)
		switch {
		case p.URL != "":
			m.Type = "uri"
			m.URI, ok = c.take(p.URL)
		default:
			// Base64 cut short is no content at all: the data is recorded
			// whole or not, and the bound is marked as reached.
			m.Type = "blob"
			if c.used+minPartCost+len(p.Data) <= c.limit {
				m.Content, ok = c.take(p.Data)
			} else {
				_, ok = c.take("")
				c.truncated = true
			}
		}
	}
	return m, ok
}

// modality is the conventions' modality of a media part: image, audio or
// video by the part's kind or MIME type; a document's MIME type family
// otherwise ("application" for a PDF).
func modality(p *codec.Part) string {
	switch p.Type {
	case codec.PartImage:
		return "image"
	case codec.PartAudio:
		return "audio"
	}
	family, _, _ := strings.Cut(p.MediaType, "/")
	switch family {
	case "image", "audio", "video":
		return family
	case "":
		return "document"
	}
	return family
}

// parts converts a list of canonical parts up to the bound.
func (c *contentCapture) parts(ps []codec.Part) []msgPart {
	out := make([]msgPart, 0, len(ps))
	for i := range ps {
		m, ok := c.part(&ps[i])
		if !ok {
			break
		}
		out = append(out, m)
	}
	return out
}

// request takes the system instructions and the conversation. Tool
// results are the conventions' messages of role tool: a user message that
// carries them (Anthropic's, Gemini's) becomes a tool message with them,
// followed by a user message with the rest.
func (c *contentCapture) request(req *codec.Request) {
	c.system = c.parts(req.System)
	for i := range req.Messages {
		m := &req.Messages[i]
		results := 0
		for j := range m.Parts {
			if m.Parts[j].Type == codec.PartToolResult {
				results++
			}
		}
		if results == 0 || results == len(m.Parts) {
			role := m.Role.String()
			if results > 0 {
				role = "tool"
			}
			if !c.message(role, m.Parts) {
				return
			}
			continue
		}
		tool, rest := make([]codec.Part, 0, results), make([]codec.Part, 0, len(m.Parts)-results)
		for _, p := range m.Parts {
			if p.Type == codec.PartToolResult {
				tool = append(tool, p)
			} else {
				rest = append(rest, p)
			}
		}
		if !c.message("tool", tool) || !c.message(m.Role.String(), rest) {
			return
		}
	}
}

// message appends a message of ps, and reports whether the bound leaves
// room for more.
func (c *contentCapture) message(role string, ps []codec.Part) bool {
	parts := c.parts(ps)
	if len(parts) == 0 && c.used >= c.limit {
		return false
	}
	c.input = append(c.input, chatMessage{Role: role, Parts: parts})
	return true
}

// response takes a complete response's output.
func (c *contentCapture) response(resp *codec.Response) {
	c.output = c.parts(resp.Content)
}

// observe follows a stream's content events.
func (c *contentCapture) observe(ev *codec.Event) {
	switch ev.Type {
	case codec.EventPartStart:
		p := codec.Part{Type: ev.Part, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName}
		m, ok := c.part(&p)
		if !ok {
			return
		}
		if c.open == nil {
			c.open = map[int]int{}
		}
		c.open[ev.Index] = len(c.output)
		c.output = append(c.output, m)
	case codec.EventPartDelta:
		i, ok := c.open[ev.Index]
		if !ok {
			return
		}
		text, _ := c.take(ev.Text)
		// A delta is not a part: it gives back the part's share.
		c.used -= minPartCost
		m := &c.output[i]
		switch m.Type {
		case "tool_call":
			m.Arguments = append(m.Arguments, text...)
		default:
			m.Content += text
		}
	}
}

// attributes appends the content attributes to a.
func (c *contentCapture) attributes(a []attribute.KeyValue, stop string) []attribute.KeyValue {
	for i := range c.output {
		// Streamed arguments that the bound cut are not JSON; the call
		// is then recorded without them.
		if m := &c.output[i]; len(m.Arguments) > 0 && !json.Valid(m.Arguments) {
			m.Arguments = nil
		}
	}
	if len(c.system) > 0 {
		if b, err := json.Marshal(c.system); err == nil {
			a = append(a, semconv.GenAISystemInstructionsKey.String(string(b)))
		}
	}
	if len(c.input) > 0 {
		if b, err := json.Marshal(c.input); err == nil {
			a = append(a, semconv.GenAIInputMessagesKey.String(string(b)))
		}
	}
	if len(c.output) > 0 || stop != "" {
		out := []chatMessage{{Role: "assistant", Parts: c.output, FinishReason: stop}}
		if out[0].Parts == nil {
			out[0].Parts = []msgPart{}
		}
		if b, err := json.Marshal(out); err == nil {
			a = append(a, semconv.GenAIOutputMessagesKey.String(string(b)))
		}
	}
	if c.truncated {
		a = append(a, attrContentTruncated.Bool(true))
	}
	return a
}
