package caddytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"reflect"
	"strings"
	"testing"
)

// The tool-use and image tests: every client SDK through every upstream
// protocol, streaming and not.

var (
	weatherTool = toolDef{Name: "get_weather", Description: "Weather forecast for a city, by day.", Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"city": map[string]any{"type": "string", "description": "City name, with country"},
			"days": map[string]any{"type": "integer", "description": "Days to forecast", "minimum": 1},
		},
		"required":             []string{"city"},
		"additionalProperties": false,
	}}
	timeTool = toolDef{Name: "get_time", Description: "Current local time.", Schema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"timezone": map[string]any{"type": "string"}},
	}}
	listTool = toolDef{Name: "list_cities", Description: "Lists the known cities; takes no arguments.", Schema: map[string]any{
		"type": "object", "properties": map[string]any{},
	}}
)

// toolResults are the results the clients give, by tool name.
var toolResults = map[string]string{
	"get_weather": "Sunny, 21 °C — \"mild\"\nwind 5 km/h",
	"get_time":    "14:05 JST",
	"list_cities": `["Lisbon","Tokyo"]`,
}

// upstreamCallID is the id upstream up gives its i-th call; the Gemini API
// and Vertex AI give none (Vertex also rejects ids in requests).
func upstreamCallID(up proto, i int) string {
	switch up {
	case openaiChat:
		return fmt.Sprintf("call_itestChat%02d", i)
	case openaiResponses:
		return fmt.Sprintf("call_itestResp%02d", i)
	case anthropicMsgs, vertexAnthropic, bedrockAnthropic:
		return fmt.Sprintf("toolu_01ItestItestItest%02d", i)
	case bedrockConverse:
		return fmt.Sprintf("tooluse_ItestItestItestIt%02d", i)
	case geminiInteractions, vertexInteractions:
		// The Interactions API gives every call an id, which results
		// answer by call_id.
		return fmt.Sprintf("fc_itestIntr%02d", i)
	}
	return ""
}

// newMockCall is a call of upstream up with args split into pieces.
func newMockCall(up proto, i int, name, args string, pieces int) mockCall {
	c := mockCall{ID: upstreamCallID(up, i), Name: name, Args: args}
	if args != "" {
		c.Fragments = splitText(args, pieces)
	}
	return c
}

// toolCase is one tool conversation.
type toolCase struct {
	name   string
	prompt string
	tools  []toolDef
	calls  func(up proto) []mockCall
}

var (
	agentCase = toolCase{"agent-turn", "What's the weather in Lisbon for the next 3 days?", []toolDef{weatherTool},
		func(up proto) []mockCall {
			return []mockCall{newMockCall(up, 1, "get_weather", `{"city":"Lisbon, \"PT\" — ✓","days":3}`, 3)}
		}}
	parallelCase = toolCase{"parallel-calls", "Weather in Tokyo for 2 days, and the time there?", []toolDef{weatherTool, timeTool},
		func(up proto) []mockCall {
			return []mockCall{
				newMockCall(up, 1, "get_weather", `{"city":"Tokyo","days":2}`, 3),
				newMockCall(up, 2, "get_time", `{"timezone":"Asia/Tokyo"}`, 2),
			}
		}}
	noArgsCase = toolCase{"no-args", "Which cities do you know?", []toolDef{listTool},
		func(up proto) []mockCall { return []mockCall{newMockCall(up, 1, "list_cities", "", 1)} }}
)

func modeName(stream bool) string {
	if stream {
		return "streaming"
	}
	return "non-streaming"
}

// forAllPairs runs f for every client->upstream pair, streaming and not.
func forAllPairs(t *testing.T, f func(t *testing.T, env *testEnv, cp, up proto, stream bool)) {
	env := setup(t)
	for _, stream := range []bool{false, true} {
		for _, cp := range allProtocols {
			for _, up := range allProtocols {
				t.Run(modeName(stream)+"/"+pairName(cp, up), func(t *testing.T) {
					env.mocks.resetAll(t)
					f(t, env, cp, up, stream)
				})
			}
		}
	}
}

// TestToolAgentTurn: a complete agent turn. The client sends one function
// tool; the upstream checks its definition and answers a call (arguments in
// several fragments when streaming); the client gets name, id, arguments
// and the tool-use stop; it sends the result back attached to the call,
// the upstream checks the call and the result in the history and answers
// text, which the client gets.
func TestToolAgentTurn(t *testing.T) {
	forAllPairs(t, func(t *testing.T, env *testEnv, cp, up proto, stream bool) {
		runToolCase(t, env, cp, up, stream, agentCase)
	})
}

// TestToolParallelCalls: two tool calls in one answer, then both results.
func TestToolParallelCalls(t *testing.T) {
	forAllPairs(t, func(t *testing.T, env *testEnv, cp, up proto, stream bool) {
		runToolCase(t, env, cp, up, stream, parallelCase)
	})
}

// TestToolNoArguments: a call of a tool without parameters reaches the
// client with arguments that parse to {}.
func TestToolNoArguments(t *testing.T) {
	forAllPairs(t, func(t *testing.T, env *testEnv, cp, up proto, stream bool) {
		runToolCase(t, env, cp, up, stream, noArgsCase)
	})
}

func runToolCase(t *testing.T, env *testEnv, cp, up proto, stream bool, tc toolCase) {
	c := toolClients()[cp]
	m := env.mocks[up]
	name := fmt.Sprintf("%s %s %s", tc.name, pairName(cp, up), modeName(stream))
	sent := tc.calls(up)
	conv := toolConv{Model: cp.defaultModel(), MaxTokens: 256, Tools: tc.tools, Msgs: []toolMsg{{Role: "user", Text: tc.prompt}}}

	// Turn 1: the tool definitions go up, the calls come back.
	m.clearRequests()
	m.setScenario(toolCallAnswer(up, cp.defaultModel(), sent, stream))
	m.setCheck(func(body []byte) []string {
		v := viewTools(up, body)
		problems := append(v.Problems, checkToolDefs(v, tc.tools)...)
		if len(v.Calls)+len(v.Results) > 0 {
			problems = append(problems, fmt.Sprintf("turn 1 carries tool calls %+v and results %+v, want none", v.Calls, v.Results))
		}
		return problems
	})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out, err := c.toolTurn(ctx, env.plain[up], conv, stream)
	if rec, hits := m.lastRequest(); hits != 1 {
		t.Errorf("%s turn 1: the upstream received %d requests, want 1", name, hits)
	} else if t.Failed() {
		t.Logf("%s turn 1: upstream request body: %s", name, rec.Body)
	}
	if err != nil {
		t.Fatalf("%s turn 1: the client got an error: %s", name, describeStreamErr(err))
	}
	if !checkClientCalls(t, name, cp, up, stream, out, sent) {
		return
	}

	// Turn 2: the history with the calls and their results goes up, text
	// comes back.
	conv.Msgs = append(conv.Msgs, toolMsg{Role: "assistant", Calls: out.Calls})
	for _, call := range out.Calls {
		conv.Msgs = append(conv.Msgs, toolMsg{Role: "tool", CallID: call.ID, Name: call.Name, Text: toolResults[call.Name]})
	}
	m.clearRequests()
	want := reply{Text: fmt.Sprintf("Done: «%s» via %s ✓", tc.name, up), Stop: "end", Usage: defaultUsage}
	m.setReply(want)
	m.setCheck(func(body []byte) []string {
		v := viewTools(up, body)
		problems := append(v.Problems, checkToolDefs(v, tc.tools)...)
		return append(problems, checkHistory(up, v, sent, toolResults)...)
	})
	out2, err := c.toolTurn(ctx, env.plain[up], conv, stream)
	rec, hits := m.lastRequest()
	if hits != 1 {
		t.Errorf("%s turn 2: the upstream received %d requests, want 1", name, hits)
	}
	if err != nil {
		if rec != nil {
			t.Logf("%s turn 2: upstream request body: %s", name, rec.Body)
		}
		t.Fatalf("%s turn 2: the client got an error: %s", name, describeStreamErr(err))
	}
	if out2.Text != want.Text || out2.Stop != "end" || len(out2.Calls) != 0 || !out2.Terminal {
		t.Errorf("%s turn 2: the client got text %q, stop %q, calls %+v, terminal %v; want %q, end, no calls, terminal",
			name, out2.Text, out2.Stop, out2.Calls, out2.Terminal, want.Text)
	}
}

// checkClientCalls checks what the client got in turn 1; it reports
// whether turn 2 can go on.
func checkClientCalls(t *testing.T, name string, cp, up proto, stream bool, out toolOutcome, sent []mockCall) bool {
	t.Helper()
	ok := true
	if out.Stop != "tool_use" {
		t.Errorf("%s: the client's stop reason is %q, want tool_use", name, out.Stop)
	}
	if !out.Terminal {
		t.Errorf("%s: the answer ended without the protocol's end of a complete answer", name)
	}
	// Within a family llmbridge passes the upstream's bytes through
	// unchanged (passthrough_test.go), so the stream's shape and a
	// no-arguments call's form are the upstream's own.
	passthrough := cp.family() == up.family()
	if !passthrough {
		for _, p := range out.StreamProblems {
			t.Errorf("%s: stream shape: %s", name, p)
		}
	}
	if len(out.Calls) != len(sent) {
		t.Errorf("%s: the client got %d tool calls %+v, want %d", name, len(out.Calls), out.Calls, len(sent))
		return false
	}
	ids := map[string]bool{}
	for i, s := range sent {
		got := out.Calls[i]
		if got.Name != s.Name {
			t.Errorf("%s: call %d name %q, want %q", name, i, got.Name, s.Name)
			ok = false
		}
		if got.ID == "" && passthrough && up.family() == gemini {
			// The Gemini API and Vertex give no ids and a Gemini client
			// gets its answer untouched; its result goes back by name.
		} else if got.ID == "" {
			t.Errorf("%s: call %d (%s) has no id", name, i, s.Name)
			ok = false
		} else if ids[got.ID] {
			t.Errorf("%s: call %d (%s) repeats the id %q", name, i, s.Name, got.ID)
			ok = false
		}
		ids[got.ID] = true
		if s.ID != "" && got.ID != s.ID {
			t.Errorf("%s: call %d (%s) id %q, want the upstream's %q unchanged", name, i, s.Name, got.ID, s.ID)
		}
		wantArgs := "{}"
		if s.Args != "" {
			wantArgs = s.Args
		}
		if got.Args == wantArgs {
			continue
		}
		var g, w any
		if err := json.Unmarshal([]byte(got.Args), &g); err != nil {
			t.Errorf("%s: call %d (%s) arguments %q are not JSON: %v", name, i, s.Name, got.Args, err)
			ok = false
			continue
		}
		_ = json.Unmarshal([]byte(wantArgs), &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: call %d (%s) arguments %s, want %s", name, i, s.Name, got.Args, wantArgs)
		}
		// A fragmented upstream stream reaches a client whose protocol
		// streams fragments incrementally (an Interactions client gets a
		// call's step whole, as Gemini's get whole calls).
		if stream && len(s.Fragments) >= 2 && !up.isGoogle() && !cp.isGoogle() && !cp.isInteractions() && out.ArgFragments[i] < 2 {
			t.Errorf("%s: call %d (%s) arguments reached the client in %d fragment(s); the upstream sent %d", name, i, s.Name, out.ArgFragments[i], len(s.Fragments))
		}
	}
	return ok
}

// testPNG is a 2x2 PNG.
var testPNG = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	img.Set(1, 1, color.RGBA{0, 0, 255, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

// TestImageInput: a base64 PNG in the user message reaches the upstream in
// its protocol's image form with the same bytes and media type.
func TestImageInput(t *testing.T) {
	forAllPairs(t, func(t *testing.T, env *testEnv, cp, up proto, stream bool) {
		c := toolClients()[cp]
		m := env.mocks[up]
		name := fmt.Sprintf("image %s %s", pairName(cp, up), modeName(stream))
		want := reply{Text: "A red and a blue pixel. ✓", Stop: "end", Usage: defaultUsage}
		m.setReply(want)
		m.setCheck(func(body []byte) []string {
			v := viewTools(up, body)
			problems := v.Problems
			if len(v.Images) != 1 {
				return append(problems, fmt.Sprintf("%d images arrived, want 1", len(v.Images)))
			}
			if v.Images[0].MIME != "image/png" || !bytes.Equal(v.Images[0].Data, testPNG) {
				problems = append(problems, fmt.Sprintf("the image arrived as %s with %d bytes (same bytes: %v), want image/png with the %d bytes sent",
					v.Images[0].MIME, len(v.Images[0].Data), bytes.Equal(v.Images[0].Data, testPNG), len(testPNG)))
			}
			return problems
		})
		conv := toolConv{Model: cp.defaultModel(), MaxTokens: 256,
			Msgs: []toolMsg{{Role: "user", Text: "What is in this image?", Image: testPNG, ImageMIME: "image/png"}}}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		out, err := c.toolTurn(ctx, env.plain[up], conv, stream)
		if _, hits := m.lastRequest(); hits != 1 {
			t.Errorf("%s: the upstream received %d requests, want 1", name, hits)
		}
		if err != nil {
			t.Fatalf("%s: the client got an error: %s", name, describeStreamErr(err))
		}
		if out.Text != want.Text || out.Stop != "end" {
			t.Errorf("%s: the client got %q (stop %q), want %q (end)", name, out.Text, out.Stop, want.Text)
		}
		if strings.Contains(out.Text, "\x00") {
			t.Errorf("%s: NUL in text", name)
		}
	})
}
