package caddytest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// passthroughBodies are client request bodies with unusual key order,
// vendor fields llmbridge does not know (top-level fields the provider
// knows, and nested fields nobody documents), odd whitespace and escapes.
// Same-protocol pairs must deliver them byte for byte.
var passthroughBodies = map[proto]string{
	openaiChat: "{\n\t\"temperature\" : 0.250 ,\n\t\"messages\": [\n\t\t{\"role\": \"system\", \"content\": \"Be terse.\"},\n" +
		"\t\t{\"content\": [{\"type\": \"text\", \"text\": \"Say \\\"hi\\\" \\u00e0 la fran\\u00e7aise\", \"x_vendor_part\": {\"keep\": [1, 2.50, true, null]}}],\n" +
		"\t\t \"role\": \"user\", \"x_vendor_msg\": \"kept\"}\n\t],\n" +
		"\t\"model\": \"gpt-4o\",   \"prediction\": {\"type\": \"content\", \"content\": \"Salut\"},\n" +
		"\t\"web_search_options\": {}, \"max_completion_tokens\": 64\n}\n",
	openaiResponses: "{ \"input\" : [ {\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Hi \\u263a\",\"x_vendor\":1}]} ],\n" +
		"  \"model\":\"gpt-4o\", \"include\":[\"reasoning.encrypted_content\"], \"store\":false,\"max_output_tokens\": 64 ,\"prompt_cache_key\":\"itest\"  }",
	anthropicMsgs: "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi \\ud83d\\ude00\",\"cache_control\":{\"type\":\"ephemeral\"},\"x_vendor_block\":{\"a\":1}}]}],\n" +
		" \"max_tokens\":  64, \"model\" : \"claude-sonnet-4-5\", \"inference_geo\":\"us\",\r\n" +
		" \"system\":[{\"type\":\"text\",\"text\":\"Be terse.\"}], \"metadata\": {\"user_id\": \"{\\\"session\\\":\\\"x\\\"}\"} }",
	vertexAnthropic: "{ \"anthropic_version\" : \"vertex-2023-10-16\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi \\u00e9\", \"x_vendor\": [] }],\n" +
		"\t\"max_tokens\":64,\n\t\"system\":\"Be terse.\", \"top_k\" : 5 }\n",
	gemini: "{\n  \"generationConfig\": {\"maxOutputTokens\": 64, \"x_vendor_knob\": true, \"thinkingConfig\": {\"thinkingBudget\": 0}},\n" +
		"  \"contents\": [ { \"parts\": [ {\"text\": \"Hi \\u00fc\", \"thoughtSignature\": \"c2tpcA==\"} ], \"role\": \"user\" } ],\n" +
		"  \"safetySettings\": [{\"category\":\"HARM_CATEGORY_HARASSMENT\",\"threshold\":\"BLOCK_NONE\"}]\n}",
	vertex: "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Hi\"}]}],   \"labels\": {\"team\": \"itest\"},\n" +
		"\"system_instruction\": {\"parts\": [{\"text\": \"Be terse.\"}]}, \"generationConfig\": {\"temperature\": 0.5e0}}",
}

// bridgeBody is the body an anthropic-messages client sends when its
// upstream is vertex-anthropic: only fields both endpoints accept.
const bridgeBody = "{ \"model\" : \"claude-sonnet-4-5@20250929\",\n \"max_tokens\": 64,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\",\"x_vendor\":{}}]}],\n" +
	"  \"system\":  \"Be terse.\", \"stream\": false}"

// passthroughResponse is an upstream success body with odd whitespace and an
// unknown field, which must reach a same-family client byte for byte.
func passthroughResponse(up proto, model string) string {
	b := successBody(up, model, reply{Text: "Ol\u00e1 \u2014 raw bytes", Stop: "end"})
	return "{\n  \"x_vendor_extra\" : {\"nested\": [1, 2.50, \"\\u00e9\"]},\n  " + b[1:] + "\n"
}

// TestPassthrough checks the pairs whose client and upstream share a wire
// format: the body reaches the upstream byte for byte (or with only the
// dialect edits between Anthropic and Anthropic on Vertex), only the path
// and the credential change, and the response reaches the client byte for
// byte.
func TestPassthrough(t *testing.T) {
	env := setup(t)
	cases := []struct {
		client, upstream proto
		model            string
		body             string
		// dialect is "" for byte-identical bodies, else the edit expected.
		dialect string
		// variant names a client-side variation: "beta" posts to
		// /v1/messages?beta=true as Claude Code does; "v1" uses the Gemini
		// API's /v1/models/ path.
		variant string
	}{
		{openaiChat, openaiChat, "gpt-4o", passthroughBodies[openaiChat], "", ""},
		{openaiResponses, openaiResponses, "gpt-4o", passthroughBodies[openaiResponses], "", ""},
		{anthropicMsgs, anthropicMsgs, "claude-sonnet-4-5", passthroughBodies[anthropicMsgs], "", ""},
		{vertexAnthropic, vertexAnthropic, "claude-sonnet-4-5@20250929", passthroughBodies[vertexAnthropic], "", ""},
		{gemini, gemini, "gemini-2.5-flash", passthroughBodies[gemini], "", ""},
		{vertex, vertex, "gemini-2.5-pro", passthroughBodies[vertex], "", ""},
		{gemini, vertex, "gemini-2.5-flash", passthroughBodies[gemini], "", ""},
		{vertex, gemini, "gemini-2.5-pro", strings.Replace(passthroughBodies[vertex], `"labels": {"team": "itest"},`, "", 1), "", ""},
		{anthropicMsgs, vertexAnthropic, "claude-sonnet-4-5@20250929", bridgeBody, "to-vertex", ""},
		{vertexAnthropic, anthropicMsgs, "claude-sonnet-4-5@20250929", passthroughBodies[vertexAnthropic], "from-vertex", ""},
		{anthropicMsgs, anthropicMsgs, "claude-sonnet-4-5", passthroughBodies[anthropicMsgs], "", "beta"},
		{anthropicMsgs, vertexAnthropic, "claude-sonnet-4-5@20250929", bridgeBody, "to-vertex", "beta"},
		{gemini, gemini, "gemini-2.5-flash", passthroughBodies[gemini], "", "v1"},
		{gemini, vertex, "gemini-2.5-flash", passthroughBodies[gemini], "", "v1"},
	}
	for _, tc := range cases {
		sub := pairName(tc.client, tc.upstream)
		if tc.variant != "" {
			sub += "/" + tc.variant
		}
		t.Run(sub, func(t *testing.T) {
			env.mocks.resetAll(t)
			name := sub + " passthrough"
			m := env.mocks[tc.upstream]
			answer := passthroughResponse(tc.upstream, tc.model)
			m.setScenario(scenario{Status: 200, Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Vendor-Request-Id": {"itest-123"}}, Body: answer})

			req := newClientRequest(t, http.MethodPost, env.plain[tc.upstream], tc.client, tc.model, []byte(tc.body))
			if tc.client == anthropicMsgs {
				req.Header.Set("Anthropic-Beta", "itest-feature-2025-01-01")
			}
			switch tc.variant {
			case "beta":
				req.URL.RawQuery = "beta=true"
			case "v1":
				req.URL.Path = strings.Replace(req.URL.Path, "/v1beta/", "/v1/", 1)
			}
			resp := do(t, req)

			rec, hits := m.lastRequest()
			if hits != 1 || rec == nil {
				t.Fatalf("%s: the upstream received %d requests, want 1; client got %d %s", name, hits, resp.Status, resp.Body)
			}
			// A first-party Anthropic upstream may or may not get ?beta=true;
			// every other upstream URL is exactly the endpoint.
			queryFree := tc.variant != "beta" || tc.upstream != anthropicMsgs
			if want := tc.upstream.upstreamPath(tc.model); rec.Path != want || (queryFree && rec.RawQuery != "") {
				t.Errorf("%s: upstream URL = %s?%s, want %s", name, rec.Path, rec.RawQuery, want)
			}
			if got := credential(tc.upstream, rec); got != clientKey {
				t.Errorf("%s: upstream credential = %q, want the client's %q", name, got, clientKey)
			}
			if tc.client == anthropicMsgs && tc.upstream == anthropicMsgs {
				if got := rec.Header.Get("Anthropic-Beta"); got != "itest-feature-2025-01-01" {
					t.Errorf("%s: anthropic-beta header = %q, want it passed through", name, got)
				}
			}
			switch tc.dialect {
			case "":
				if !bytes.Equal(rec.Body, []byte(tc.body)) {
					t.Errorf("%s: the upstream body differs from the client's\n got: %q\nwant: %q", name, rec.Body, tc.body)
				}
			case "to-vertex":
				checkDialectEdit(t, name, []byte(tc.body), rec.Body, "model", "anthropic_version", `"`+vertexAnthropicVersion+`"`)
			case "from-vertex":
				checkDialectEdit(t, name, []byte(tc.body), rec.Body, "anthropic_version", "model", jsonString(tc.model))
			}

			if resp.Status != 200 {
				t.Fatalf("%s: client status %d, want 200; body %s", name, resp.Status, resp.Body)
			}
			if string(resp.Body) != answer {
				t.Errorf("%s: the client's response differs from the upstream's\n got: %q\nwant: %q", name, resp.Body, answer)
			}
			if got := resp.Header.Get("X-Vendor-Request-Id"); got != "itest-123" {
				t.Errorf("%s: upstream response header X-Vendor-Request-Id = %q, want it passed through", name, got)
			}
		})
	}
}

// checkDialectEdit checks that got is sent with the top-level key removed
// deleted and the key added set to the raw JSON value addedRaw, every other
// member keeping its order and its exact bytes.
func checkDialectEdit(t *testing.T, name string, sent, got []byte, removed, added, addedRaw string) {
	t.Helper()
	if !gjson.ValidBytes(got) {
		t.Fatalf("%s: upstream body is not JSON: %q", name, got)
	}
	type member struct{ key, raw string }
	members := func(b []byte, skip string) []member {
		var ms []member
		gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
			if k.Str != skip {
				ms = append(ms, member{k.Str, v.Raw})
			}
			return true
		})
		return ms
	}
	want, have := members(sent, removed), members(got, added)
	if len(want) != len(have) {
		t.Errorf("%s: upstream body has members %v, want %v (only %q removed and %q added)\n body: %s", name, have, want, removed, added, got)
		return
	}
	for i := range want {
		if want[i] != have[i] {
			t.Errorf("%s: upstream body member %d = %q: %s, want %q: %s unchanged", name, i, have[i].key, have[i].raw, want[i].key, want[i].raw)
		}
	}
	if r := gjson.GetBytes(got, removed); r.Exists() {
		t.Errorf("%s: upstream body still has %q: %s", name, removed, r.Raw)
	}
	if r := gjson.GetBytes(got, added); r.Raw != addedRaw {
		t.Errorf("%s: upstream body %q = %s, want %s", name, added, r.Raw, addedRaw)
	}
}
