package codec_test

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Native opaque values as each family issues them.
const (
	anthropicSig  = "EqQBCkgIARABGAIiQL2N0jN7kq2dGm+f3Kx1YqZ9sWmE3b4aU8yY0Qx9kcqV0t3vNfq5zT8oP1r2s3t4u5v6w7x8y9z0AbCdEfGhIjKlMnOpQrStUvWxYz=="
	anthropicData = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8="
	openaiEnc     = "gAAAAABoTestEncryptedContent_0123456789-abcdefghijklmnopqrstuvwxyz=="
	geminiSig     = "CiQB0e2Kb7dQmP3sEXAMPLEthoughtSignature/+==" // base64, as Gemini sends it
)

// issuedReasoning is what an upstream of protocol u issues on turn 1: its
// reasoning with native opaque values, then a tool call.
func issuedReasoning(u codec.Protocol) []codec.Part {
	switch wire.FamilyOf(u) {
	case mapping.FamilyAnthropic:
		return []codec.Part{
			{Type: codec.PartReasoning, Text: "The user wants the weather.", Signature: anthropicSig, Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Redacted: true, Signature: anthropicData, Origin: mapping.FamilyAnthropic},
		}
	case mapping.FamilyOpenAI:
		return []codec.Part{{Type: codec.PartReasoning, Text: "**Weather lookup**\n\nI should call the tool.", ItemID: "rs_68af0a1b2c3d", Signature: openaiEnc, Origin: mapping.FamilyOpenAI}}
	}
	return []codec.Part{{Type: codec.PartReasoning, Text: "Thinking about the weather.", Signature: geminiSig, Origin: mapping.FamilyGemini}}
}

// nativeAnswer is the turn-1 answer of an upstream of protocol u, as its
// servers write it: the reasoning of issuedReasoning with native opaque
// values in native slots, then a call of get_weather.
func nativeAnswer(u codec.Protocol) []byte {
	var b []byte
	parts := issuedReasoning(u)
	switch {
	case u.Family() == interactions.Gemini:
		b = append(b, `{"id":"v1_1","model":"m","status":"requires_action","steps":[{"type":"thought","signature":`...)
		b = jsonx.AppendString(b, parts[0].Signature)
		b = append(b, `,"summary":[{"type":"text","text":`...)
		b = jsonx.AppendString(b, parts[0].Text)
		b = append(b, `}]},{"type":"function_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}],`+
			`"usage":{"total_input_tokens":10,"total_output_tokens":5,"total_thought_tokens":45,"total_tokens":60}}`...)
	case u == codec.Bedrock:
		b = append(b, `{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":`...)
		b = jsonx.AppendString(b, parts[0].Text)
		b = append(b, `,"signature":`...)
		b = jsonx.AppendString(b, parts[0].Signature)
		b = append(b, `}}},{"reasoningContent":{"redactedContent":`...)
		b = jsonx.AppendString(b, parts[1].Signature)
		b = append(b, `}},{"toolUse":{"toolUseId":"call_1","name":"get_weather","input":{"city":"Paris"}}}]}},"stopReason":"tool_use",`+
			`"usage":{"inputTokens":10,"outputTokens":50,"totalTokens":60},"metrics":{"latencyMs":5}}`...)
	case wire.FamilyOf(u) == mapping.FamilyAnthropic:
		b = append(b, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"thinking","thinking":`...)
		b = jsonx.AppendString(b, parts[0].Text)
		b = append(b, `,"signature":`...)
		b = jsonx.AppendString(b, parts[0].Signature)
		b = append(b, `},{"type":"redacted_thinking","data":`...)
		b = jsonx.AppendString(b, parts[1].Signature)
		b = append(b, `},{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":50}}`...)
	case wire.FamilyOf(u) == mapping.FamilyOpenAI:
		b = append(b, `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"reasoning","id":`...)
		b = jsonx.AppendString(b, parts[0].ItemID)
		b = append(b, `,"summary":[{"type":"summary_text","text":`...)
		b = jsonx.AppendString(b, parts[0].Text)
		b = append(b, `}],"encrypted_content":`...)
		b = jsonx.AppendString(b, parts[0].Signature)
		b = append(b, `},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}],"usage":{"input_tokens":10,"output_tokens":50,"total_tokens":60}}`...)
	default:
		b = append(b, `{"candidates":[{"content":{"role":"model","parts":[{"text":`...)
		b = jsonx.AppendString(b, parts[0].Text)
		b = append(b, `,"thought":true},{"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":`...)
		b = jsonx.AppendString(b, parts[0].Signature)
		b = append(b, `}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"thoughtsTokenCount":45,"totalTokenCount":60},"modelVersion":"m","responseId":"r1"}`...)
	}
	return b
}

// historyFromResponse builds the client's turn-2 request the way an agent
// does: the turn-1 request, the assistant output replayed verbatim from the
// client-protocol response body, and the tool result.
//
// A Gemini client may keep thought parts out of the history it replays
// (dropThoughts), as Gemini CLI does; only thought signatures come back.
func historyFromResponse(t *testing.T, c codec.Protocol, body []byte, dropThoughts bool) []byte {
	t.Helper()
	resp := gjson.ParseBytes(body)
	var out string
	var err error
	set := func(path string, raw string) {
		if err == nil {
			out, err = sjson.SetRaw(out, path, raw)
		}
	}
	tools := `[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`
	switch c.Family() {
	case interactions.Gemini:
		out = `{"model":"m","input":[{"type":"user_input","content":[{"type":"text","text":"Weather in Paris?"}]}],` +
			`"generation_config":{"thinking_level":"high","max_output_tokens":20000},"store":false}`
		set("tools", `[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`)
		for _, step := range resp.Get("steps").Array() {
			set("input.-1", step.Raw)
		}
		set("input.-1", `{"type":"function_result","call_id":"call_1","name":"get_weather","result":"sunny"}`)
	case codec.Bedrock:
		out = `{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]}],"inferenceConfig":{"maxTokens":20000},` +
			`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":16000}}}`
		set("toolConfig", `{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object","properties":{"city":{"type":"string"}}}}}}]}`)
		set("messages.-1", resp.Get("output.message").Raw)
		set("messages.-1", `{"role":"user","content":[{"toolResult":{"toolUseId":"call_1","content":[{"text":"sunny"}]}}]}`)
	case codec.OpenAIChat:
		out = `{"model":"m","messages":[{"role":"user","content":"Weather in Paris?"}],"reasoning_effort":"high"}`
		set("tools", tools)
		set("messages.-1", resp.Get("choices.0.message").Raw)
		set("messages.-1", `{"role":"tool","tool_call_id":"call_1","content":"sunny"}`)
	case codec.OpenAIResponses:
		out = `{"model":"m","input":[{"role":"user","content":"Weather in Paris?"}],"reasoning":{"effort":"high"},"include":["reasoning.encrypted_content"],"store":false}`
		set("tools", `[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`)
		for _, item := range resp.Get("output").Array() {
			set("input.-1", item.Raw)
		}
		set("input.-1", `{"type":"function_call_output","call_id":"call_1","output":"sunny"}`)
	case codec.AnthropicMessages:
		out = `{"model":"m","max_tokens":20000,"thinking":{"type":"enabled","budget_tokens":16000},"messages":[{"role":"user","content":"Weather in Paris?"}]}`
		switch c {
		case codec.VertexAnthropic:
			out = `{"anthropic_version":"vertex-2023-10-16","max_tokens":20000,"thinking":{"type":"enabled","budget_tokens":16000},"messages":[{"role":"user","content":"Weather in Paris?"}]}`
		case codec.BedrockAnthropic:
			out = `{"anthropic_version":"bedrock-2023-05-31","max_tokens":20000,"thinking":{"type":"enabled","budget_tokens":16000},"messages":[{"role":"user","content":"Weather in Paris?"}]}`
		}
		set("tools", `[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`)
		set("messages.-1", `{"role":"assistant","content":`+resp.Get("content").Raw+`}`)
		set("messages.-1", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"sunny"}]}`)
	default: // Gemini and Vertex
		out = `{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}],"generationConfig":{"thinkingConfig":{"thinkingBudget":16000,"includeThoughts":true}}}`
		set("tools", `[{"functionDeclarations":[{"name":"get_weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}]`)
		content := resp.Get("candidates.0.content").Raw
		if dropThoughts {
			kept := "[]"
			resp.Get("candidates.0.content.parts").ForEach(func(_, p gjson.Result) bool {
				if !p.Get("thought").Bool() {
					kept, _ = sjson.SetRaw(kept, "-1", p.Raw)
				}
				return true
			})
			content, _ = sjson.SetRaw(content, "parts", kept)
		}
		set("contents.-1", content)
		set("contents.-1", `{"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"get_weather","response":{"output":"sunny"}}}]}`)
	}
	if err != nil {
		t.Fatal(err)
	}
	return []byte(out)
}

// returnedOpaque extracts, from an upstream request body of protocol u, the
// opaque values in its native slots, in order.
func returnedOpaque(u codec.Protocol, body []byte) []string {
	var got []string
	root := gjson.ParseBytes(body)
	if u.Family() == interactions.Gemini {
		root.Get("input").ForEach(func(_, step gjson.Result) bool {
			if step.Get("type").Str == "thought" {
				got = append(got, "signature:"+step.Get("signature").Str)
			}
			return true
		})
		return got
	}
	if u == codec.Bedrock {
		root.Get("messages.#.content").ForEach(func(_, blocks gjson.Result) bool {
			blocks.ForEach(func(_, b gjson.Result) bool {
				if r := b.Get("reasoningContent.reasoningText"); r.Exists() {
					got = append(got, "thinking:"+r.Get("text").Str+"|"+r.Get("signature").Str)
				} else if r := b.Get("reasoningContent.redactedContent"); r.Exists() {
					got = append(got, "redacted:"+r.Str)
				}
				return true
			})
			return true
		})
		return got
	}
	switch wire.FamilyOf(u) {
	case mapping.FamilyAnthropic:
		root.Get("messages.#.content").ForEach(func(_, blocks gjson.Result) bool {
			blocks.ForEach(func(_, b gjson.Result) bool {
				switch b.Get("type").Str {
				case "thinking":
					got = append(got, "thinking:"+b.Get("thinking").Str+"|"+b.Get("signature").Str)
				case "redacted_thinking":
					got = append(got, "redacted:"+b.Get("data").Str)
				}
				return true
			})
			return true
		})
	case mapping.FamilyOpenAI:
		root.Get("input").ForEach(func(_, item gjson.Result) bool {
			if item.Get("type").Str == "reasoning" {
				got = append(got, "reasoning:"+item.Get("id").Str+"|"+item.Get("encrypted_content").Str)
			}
			return true
		})
	default:
		root.Get("contents").ForEach(func(_, content gjson.Result) bool {
			content.Get("parts").ForEach(func(_, p gjson.Result) bool {
				if s := p.Get("thoughtSignature"); s.Exists() {
					got = append(got, "signature:"+s.Str)
				}
				return true
			})
			return true
		})
	}
	return got
}

func wantOpaque(u codec.Protocol) []string {
	var want []string
	for _, p := range issuedReasoning(u) {
		switch wire.FamilyOf(u) {
		case mapping.FamilyAnthropic:
			if p.Redacted {
				want = append(want, "redacted:"+p.Signature)
			} else {
				want = append(want, "thinking:"+p.Text+"|"+p.Signature)
			}
		case mapping.FamilyOpenAI:
			want = append(want, "reasoning:"+p.ItemID+"|"+p.Signature)
		default:
			want = append(want, "signature:"+p.Signature)
		}
	}
	return want
}

// TestReasoningReplay is the multi-turn reasoning replay at codec level:
// for every upstream that signs its reasoning and every client protocol of
// another family, the upstream's turn-1 answer (reasoning with native
// opaque values, then a tool call) is translated to the client, the client
// replays it verbatim as history with the tool result, and the turn-2
// request the upstream receives carries every opaque value byte for byte in
// its native slot.
func TestReasoningReplay(t *testing.T) {
	upstreams := []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic, codec.OpenAIResponses, codec.Gemini, codec.Vertex, codec.Bedrock,
		interactions.Gemini, interactions.Vertex}
	for _, u := range upstreams {
		for _, c := range codec.Protocols() {
			if c.Family() == u.Family() {
				continue // passthrough: bytes are forwarded unchanged
			}
			for _, dropThoughts := range []bool{false, true} {
				if dropThoughts && c.Family() != codec.Gemini {
					continue
				}
				name := string(u) + "->" + string(c)
				if dropThoughts {
					name += "/without-thought-parts"
				}
				replayOnce(t, name, u, c, dropThoughts)
			}
		}
	}
}

// replayOnce runs one turn-1 answer / turn-2 replay of TestReasoningReplay.
func replayOnce(t *testing.T, name string, u, c codec.Protocol, dropThoughts bool) {
	t.Run(name, func(t *testing.T) {
		upBody := nativeAnswer(u)
		var decoded codec.Response
		if err := codec.DecodeResponse(u, upBody, &decoded); err != nil {
			t.Fatalf("decoding the upstream answer: %v\n%s", err, upBody)
		}
		clientBody, err := codec.AppendResponse(nil, c, &decoded)
		if err != nil {
			t.Fatalf("encoding for the client: %v", err)
		}
		turn2 := historyFromResponse(t, c, clientBody, dropThoughts)
		var req codec.Request
		if err := codec.DecodeRequest(c, turn2, &req); err != nil {
			t.Fatalf("decoding the client's turn 2: %v\n%s", err, turn2)
		}
		if c.ModelInPath() {
			req.Model = "m"
		}
		model := "m"
		if u == codec.Bedrock {
			// Reasoning settings reach Bedrock only for a model whose
			// fields are known, Claude's.
			model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
		}
		upReq, err := codec.AppendRequest(nil, u, &req, codec.EncodeOptions{Model: model})
		if err != nil {
			t.Fatalf("encoding turn 2 for the upstream: %v", err)
		}
		got, want := returnedOpaque(u, upReq), wantOpaque(u)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("opaque values reaching the upstream on turn 2:\n got %q\nwant %q\nclient body: %s\nupstream request: %s", got, want, clientBody, upReq)
		}
	})
}
