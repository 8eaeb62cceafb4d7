package responses

import (
	"encoding/binary"
	"strings"
	"sync"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// testItemStore is an ItemStore in a map, with keys counted up.
type testItemStore struct {
	mu    sync.Mutex
	next  uint64
	items map[codec.ItemKey][]byte
}

func newTestItemStore() *testItemStore {
	return &testItemStore{items: map[codec.ItemKey][]byte{}}
}

func (s *testItemStore) NewItemKey() codec.ItemKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	var k codec.ItemKey
	binary.BigEndian.PutUint64(k[8:], s.next)
	return k
}

func (s *testItemStore) PutItem(key codec.ItemKey, item []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items[key] = append([]byte(nil), item...)
}

func (s *testItemStore) Item(key codec.ItemKey) ([]byte, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, ok := s.items[key]; ok {
		return it, ""
	}
	return nil, "it expired"
}

// itemRefAnswer is an answer with signed reasoning, a text too long for an
// id and a tool call.
var itemRefAnswer = codec.Response{ID: "msg_01ABC", Model: "m", StopReason: mapping.StopToolUse, Content: []codec.Part{
	{Type: codec.PartReasoning, Text: "Think.", Signature: "sig-1", Origin: mapping.FamilyAnthropic},
	{Type: codec.PartText, Text: "Let me look that up in the weather service for you, one moment."},
	{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "weather", Arguments: `{"city":"Paris"}`},
}}

// itemRefWant is the assistant turn itemRefAnswer restores to.
var itemRefWant = []codec.Part{
	{Type: codec.PartReasoning, Text: "Think.", Signature: "sig-1", Origin: mapping.FamilyAnthropic},
	{Type: codec.PartText, Text: "Let me look that up in the weather service for you, one moment."},
	{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "weather", Arguments: `{"city":"Paris"}`},
}

// referenceAll decodes a request that refers to every output item of
// output (a JSON array) by id, as the Vercel AI SDK does with store on.
func referenceAll(t *testing.T, output gjson.Result, store codec.ItemStore) (*codec.Request, error) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"model":"m","input":[{"role":"user","content":"Weather?"}`)
	for _, it := range output.Array() {
		id := it.Get("id").Str
		if len(id) > maxItemIDLen {
			t.Errorf("item id %q is %d characters, over %d", id, len(id), maxItemIDLen)
		}
		b.WriteString(`,{"type":"item_reference","id":"` + id + `"}`)
	}
	b.WriteString(`,{"type":"function_call_output","call_id":"toolu_1","output":"sunny"}]}`)
	req := &codec.Request{Items: store}
	return req, codec.DecodeRequest(codec.OpenAIResponses, []byte(b.String()), req)
}

func TestItemReferenceRoundTrip(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "response"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			store := newTestItemStore()
			client := &codec.Request{Model: "m", Items: store}
			var output gjson.Result
			if stream {
				resp := itemRefAnswer
				body := codectest.EncodeStream(codec.OpenAIResponses, client, codec.AppendResponseEvents(nil, &resp))
				added := map[int]string{}
				for _, line := range strings.Split(body, "\n") {
					data, ok := strings.CutPrefix(line, "data: ")
					if !ok {
						continue
					}
					ev := gjson.Parse(data)
					switch ev.Get("type").Str {
					case "response.output_item.added":
						added[int(ev.Get("output_index").Int())] = ev.Get("item.id").Str
					case "response.output_item.done":
						if id := ev.Get("item.id").Str; id != added[int(ev.Get("output_index").Int())] {
							t.Errorf("item %d is done as %q, added as %q", ev.Get("output_index").Int(), id, added[int(ev.Get("output_index").Int())])
						}
					case "response.completed":
						output = ev.Get("response.output")
					}
				}
				if len(added) != 3 {
					t.Fatalf("%d items added, want 3:\n%s", len(added), body)
				}
			} else {
				resp := itemRefAnswer
				out, err := codec.AppendResponseFor(nil, codec.OpenAIResponses, &resp, client)
				if err != nil {
					t.Fatal(err)
				}
				output = gjson.GetBytes(out, "output")
			}
			if len(store.items) != 3 {
				t.Fatalf("the store holds %d items, want 3", len(store.items))
			}
			req, err := referenceAll(t, output, store)
			if err != nil {
				t.Fatal(err)
			}
			want := []codec.Message{
				{Role: codec.RoleUser, Parts: []codec.Part{responsesText("Weather?")}},
				{Role: codec.RoleAssistant, Parts: itemRefWant},
				{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "toolu_1", Content: []codec.Part{responsesText("sunny")}}}},
			}
			if !codectest.EqualDecoded(req.Messages, want) {
				t.Errorf("restored\n%+v\nwant\n%+v", req.Messages, want)
			}
		})
	}
}

func TestItemReferenceInline(t *testing.T) {
	// Without a store, a short text travels in its id; a long one does not.
	for _, tc := range []struct {
		text   string
		inline bool
	}{
		{"I'll check.", true},
		{strings.Repeat("é", 20) + "a", true}, // 41 bytes
		{strings.Repeat("é", 21), false},      // 42 bytes
		{"", true},
	} {
		resp := codec.Response{ID: "resp_1", Model: "m", Content: []codec.Part{responsesText(tc.text)}}
		out, err := codec.AppendResponseFor(nil, codec.OpenAIResponses, &resp, &codec.Request{})
		if err != nil {
			t.Fatal(err)
		}
		id := gjson.GetBytes(out, "output.0.id").Str
		if len(id) > maxItemIDLen {
			t.Errorf("%q: id %q is over %d characters", tc.text, id, maxItemIDLen)
		}
		req := new(codec.Request)
		err = codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"model":"m","input":[{"role":"user","content":"Hi"},{"id":"`+id+`"},{"role":"user","content":"Go"}]}`), req)
		if !tc.inline {
			if id != "msg_1" || err == nil {
				t.Errorf("%q: id %q, reference error %v; want msg_1 and an error", tc.text, id, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if got := req.Messages[1]; got.Role != codec.RoleAssistant || len(got.Parts) != 1 || got.Parts[0].Text != tc.text {
			t.Errorf("%q: restored %+v", tc.text, got)
		}
	}
}

func TestItemReferenceErrors(t *testing.T) {
	store := newTestItemStore()
	key, stored := storedItemID(store, "msg_")
	store.PutItem(key, []byte(`{"type":"message","role":"assistant","content":"x"}`))
	_, expired := storedItemID(store, "msg_")
	loopKey, loop := storedItemID(store, "msg_")
	store.PutItem(loopKey, []byte(`{"type":"item_reference","id":"`+loop+`"}`))
	for _, tc := range []struct {
		name, item, want string
		store            codec.ItemStore
	}{
		{"OpenAI's id", `{"type":"item_reference","id":"msg_67ccd3acc8d48190a77525dc6de64b4104becd0046d5c5f1"}`, "not an id llmbridge can restore", store},
		{"no type", `{"id":"rs_1"}`, "not an id llmbridge can restore", store},
		{"damaged payload", `{"type":"item_reference","id":"msg_lb1!!"}`, "not an id llmbridge can restore", store},
		{"unknown kind", `{"type":"item_reference","id":"msg_lb1eEE"}`, "not an id llmbridge can restore", store},
		{"short key", `{"type":"item_reference","id":"msg_lb1a0E"}`, "not an id llmbridge can restore", store},
		{"not UTF-8", `{"type":"item_reference","id":"msg_lb1dP8"}`, "not an id llmbridge can restore", store},
		{"expired", `{"type":"item_reference","id":"` + expired + `"}`, "no longer holds (it expired)", store},
		{"no store", `{"type":"item_reference","id":"` + stored + `"}`, "keeps no items", nil},
		{"stored reference", `{"type":"item_reference","id":"` + loop + `"}`, "cannot restore", store},
		{"extra key", `{"type":"item_reference","id":"msg_lb1dEE","role":"assistant"}`, "unknown field", store},
		{"missing id", `{"type":"item_reference"}`, "is required", store},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &codec.Request{Items: tc.store}
			err := codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"model":"m","input":[{"role":"user","content":"Hi"},`+tc.item+`]}`), req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if e := err.(*codec.Error); e.Param != "input[1]" && !strings.HasPrefix(e.Param, "input[1].") {
				t.Errorf("param %q, want input[1]", e.Param)
			}
			if strings.Contains(tc.want, "restore") || strings.Contains(tc.want, "holds") {
				if !strings.Contains(err.Error(), "send the item itself") {
					t.Errorf("error %v does not say to send the item", err)
				}
			}
		})
	}
	// A stored item restores.
	req := &codec.Request{Items: store}
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"model":"m","input":[{"role":"user","content":"Hi"},{"type":"item_reference","id":"`+stored+`"}]}`), req); err != nil {
		t.Fatal(err)
	}
	if got := req.Messages[1].Parts[0].Text; got != "x" {
		t.Errorf("restored %q", got)
	}
}
