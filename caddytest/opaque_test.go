package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// opaqueCompaction is a compaction block of Anthropic's context management
// (compact_20260112), which no other protocol can express.
const opaqueCompaction = `{"type":"compaction","content":"Summary of the earlier turns.","encrypted_content":"EqYBCkgICxgCKkB"}`

// TestOpaqueUpstreamBlocks: an Anthropic answer holding a compaction block
// reaches every client of another family with its text, streamed and not;
// clients with a continuation slot (Responses, Gemini) carry the block, and
// their next turn brings it back whole to Anthropic.
func TestOpaqueUpstreamBlocks(t *testing.T) {
	env := setup(t)
	up := anthropicMsgs
	answer := `{"id":"msg_01Compact","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[` + opaqueCompaction +
		`,{"type":"text","text":"The answer."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01Compact\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-20250514\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"compaction\",\"content\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"compaction_delta\",\"content\":\"Summary of the earlier turns.\",\"encrypted_content\":\"EqYBCkgICxgCKkB\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"The answer.\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	for _, cp := range allProtocols {
		if cp.family() == up.family() {
			continue
		}
		for _, streamed := range []bool{false, true} {
			name := pairName(cp, up)
			if streamed {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				env.mocks.resetAll(t)
				m := env.mocks[up]
				var req *http.Request
				if streamed {
					m.setScenario(scenario{Status: 200, Header: sseHeader, Body: stream})
					req = newClientStreamRequest(t, env.plain[up], cp)
				} else {
					m.setScenario(scenario{Status: 200, Body: answer})
					req = newClientRequest(t, http.MethodPost, env.plain[up], cp, cp.defaultModel(), minimalBody(cp, cp.defaultModel()))
				}
				resp := do(t, req)
				if resp.Status != http.StatusOK {
					t.Fatalf("HTTP %d: %s", resp.Status, resp.Body)
				}
				var o clientOutcome
				if streamed {
					decodeClientStream(&o, cp, resp.Body)
				} else {
					decodeClientJSON(&o, cp, resp.Body)
				}
				if len(o.problems) > 0 || o.text != "The answer." {
					t.Fatalf("the client got %q (problems %v): %s", o.text, o.problems, resp.Body)
				}
				if streamed || (cp != openaiResponses && cp.family() != gemini) {
					return
				}
				// The next turn brings the block back.
				var next string
				switch cp {
				case openaiResponses:
					out := gjson.GetBytes(resp.Body, "output").Raw
					next = `{"model":"` + cp.defaultModel() + `","input":[{"role":"user","content":"Hi"},` + out[1:len(out)-1] + `,{"role":"user","content":"And?"}]}`
				default:
					c := gjson.GetBytes(resp.Body, "candidates.0.content").Raw
					next = `{"contents":[{"role":"user","parts":[{"text":"Hi"}]},` + c + `,{"role":"user","parts":[{"text":"And?"}]}]}`
				}
				env.mocks.resetAll(t)
				m.setScenario(scenario{Status: 200, Body: answer})
				resp = do(t, newClientRequest(t, http.MethodPost, env.plain[up], cp, cp.defaultModel(), []byte(next)))
				if resp.Status != http.StatusOK {
					t.Fatalf("next turn: HTTP %d: %s", resp.Status, resp.Body)
				}
				rec, _ := m.lastRequest()
				if got := gjson.GetBytes(rec.Body, "messages.1.content.0").Raw; got != opaqueCompaction {
					t.Errorf("the compaction block came back as %s\nupstream request: %s", got, rec.Body)
				}
				if strings.Contains(string(resp.Body), "Summary of the earlier") {
					t.Errorf("the compaction summary reached the client as text")
				}
			})
		}
	}
}
