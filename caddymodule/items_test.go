package caddymodule

import (
	"fmt"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
)

func TestItemCache(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newItemCache(4*(100+itemOverhead), time.Minute)
	c.now = func() time.Time { return now }
	item := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"n":%d%s}`, i, strings.Repeat(" ", 100-len(fmt.Sprintf(`{"n":%d}`, i)))))
	}

	k1 := c.NewItemKey()
	if k1 == c.NewItemKey() {
		t.Fatal("two keys are equal")
	}
	if [4]byte(k1[:4]) != c.instance {
		t.Fatal("a key does not start with the instance id")
	}
	c.PutItem(k1, item(1))
	if got, why := c.Item(k1); string(got) != string(item(1)) || why != "" {
		t.Fatalf("Item = %q, %q", got, why)
	}

	// Past the memory bound, the oldest go first.
	keys := []codec.ItemKey{k1}
	for i := 2; i <= 5; i++ {
		k := c.NewItemKey()
		keys = append(keys, k)
		c.PutItem(k, item(i))
	}
	if got, why := c.Item(keys[0]); got != nil || !strings.Contains(why, "expired or was evicted") || !strings.Contains(why, "1m0s") {
		t.Errorf("the oldest item is still held (%q, %q)", got, why)
	}
	for _, k := range keys[1:] {
		if got, _ := c.Item(k); got == nil {
			t.Error("a newer item was evicted")
		}
	}
	if n, size := c.stats(); n != 4 || size != 4*(100+itemOverhead) {
		t.Errorf("stats %d items, %d bytes", n, size)
	}

	// Past the time to live, an item is gone, and the next put frees it.
	now = now.Add(time.Minute)
	if got, _ := c.Item(keys[1]); got != nil {
		t.Error("an expired item was returned")
	}
	k := c.NewItemKey()
	c.PutItem(k, item(6))
	if n, _ := c.stats(); n != 1 {
		t.Errorf("%d items after the others expired, want 1", n)
	}

	// Keeping a key again replaces its item.
	c.PutItem(k, item(7))
	if got, _ := c.Item(k); string(got) != string(item(7)) {
		t.Errorf("Item = %q", got)
	}
	if n, size := c.stats(); n != 1 || size != 100+itemOverhead {
		t.Errorf("stats %d items, %d bytes after a replacement", n, size)
	}

	// An item over the bound is not kept.
	big := c.NewItemKey()
	c.PutItem(big, make([]byte, 5*(100+itemOverhead)))
	if got, _ := c.Item(big); got != nil {
		t.Error("an item over the bound was kept")
	}

	// Another instance's key is told apart.
	other := newItemCache(1<<20, time.Minute).NewItemKey()
	if _, why := c.Item(other); !strings.Contains(why, "another llmbridge instance") {
		t.Errorf("why = %q", why)
	}
}

func TestItemCacheQueueCompacts(t *testing.T) {
	c := newItemCache(10*(10+itemOverhead), time.Hour)
	for range 5000 {
		c.PutItem(c.NewItemKey(), make([]byte, 10))
	}
	if n, _ := c.stats(); n != 10 {
		t.Errorf("%d items, want 10", n)
	}
	if len(c.queue)-c.head != 10 || len(c.queue) > 2100 {
		t.Errorf("queue of %d with %d live", len(c.queue), len(c.queue)-c.head)
	}
}

// TestItemCacheMemory measures what a kept item costs beyond its bytes
// and holds itemOverhead to it.
func TestItemCacheMemory(t *testing.T) {
	const n, itemSize = 20000, 512
	c := newItemCache(1<<40, time.Hour)
	item := make([]byte, itemSize)
	keys := make([]codec.ItemKey, n)
	for i := range keys {
		keys[i] = c.NewItemKey()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, k := range keys {
		c.PutItem(k, item)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := int64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%d items of %d bytes: %d bytes each on the heap (overhead %d, accounted %d)", n, itemSize, per, per-itemSize, itemOverhead)
	if per-itemSize > itemOverhead {
		t.Errorf("an item costs %d bytes beyond its own, more than itemOverhead (%d)", per-itemSize, itemOverhead)
	}
	runtime.KeepAlive(c)
}

// TestItemReferences runs a Responses client's tool loop through an
// Anthropic upstream: the items of the first answer, streamed and not, are
// referred to by id in the second request, and the upstream gets them
// back; with item_cache off only a short text is restored.
func TestItemReferences(t *testing.T) {
	const long = "Let me look up the current weather in Paris with the weather tool."
	answer := `{"id":"msg_01A","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":` + strconv.Quote(long) + `},` +
		`{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":3}}`
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01A\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":" + strconv.Quote(long) + "}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	const tools = `"tools":[{"type":"function","name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`
	for _, tc := range []struct {
		name      string
		cacheSize int64
		stream    bool
		restored  bool
	}{
		{"response", 0, false, true},
		{"stream", 0, true, true},
		{"response, no cache", -1, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", ItemCacheSize: tc.cacheSize})
			first := `{"model":"claude-x","input":"Weather in Paris?",` + tools + `}`
			next := jsonAnswer(200, answer)
			if tc.stream {
				first = `{"model":"claude-x","stream":true,"input":"Weather in Paris?",` + tools + `}`
				next = sseAnswer(stream, 40, nil)
			}
			w, _ := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(first)), next)
			var id string
			if tc.stream {
				for _, line := range strings.Split(w.Body.String(), "\n") {
					if data, ok := strings.CutPrefix(line, "data: "); ok && gjson.Get(data, "type").Str == "response.output_item.added" {
						id = gjson.Get(data, "item.id").Str
						break
					}
				}
			} else {
				id = gjson.Get(w.Body.String(), "output.0.id").Str
			}
			if id == "" || len(id) > 64 {
				t.Fatalf("message id %q in %s", id, w.Body)
			}
			second := `{"model":"claude-x","input":[{"role":"user","content":"Weather in Paris?"},{"type":"item_reference","id":"` + id + `"},` +
				`{"type":"function_call","call_id":"toolu_1","name":"weather","arguments":"{\"city\":\"Paris\"}"},` +
				`{"type":"function_call_output","call_id":"toolu_1","output":"sunny"}],` + tools + `}`
			w, call := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(second)), jsonAnswer(200, answer))
			if !tc.restored {
				if call.called || w.Code != 400 || gjson.Get(w.Body.String(), "error.param").Str != "input[1]" {
					t.Errorf("a reference without the cache: %d %s (upstream called: %v)", w.Code, w.Body, call.called)
				}
				return
			}
			if w.Code != 200 || gjson.Get(call.body, "messages.1.content.0.text").Str != long {
				t.Errorf("%d %s; upstream got %s", w.Code, w.Body, call.body)
			}
		})
	}
}
