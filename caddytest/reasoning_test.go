package caddytest

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"google.golang.org/genai"
)

// The reasoning, refusal, truncation and usage tests: every
// client SDK through every upstream protocol, streaming and not.

// signingUpstreams are the upstreams whose reasoning carries opaque values
// that must come back on the next turn.
var signingUpstreams = []proto{anthropicMsgs, vertexAnthropic, openaiResponses, gemini, vertex, bedrockConverse, geminiInteractions, vertexInteractions}

// visibleReasoning is the reasoning text upstream up's reasoning answer
// shows (the thinking, the summary or the thought).
func visibleReasoning(up proto) string {
	switch up.family() {
	case anthropicMsgs, bedrockConverse:
		return rzThinking
	case openaiResponses:
		return rzSummary
	}
	return rzThought
}

// TestReasoningAgentReplay is a multi-turn agent conversation with the
// official SDKs through a real Caddy. For every upstream that
// signs its reasoning and every client protocol (same-family pairs, which
// are passthroughs, included), streamed and not: on turn 1 the upstream
// answers with reasoning carrying its native opaque values, then a tool
// call; the client keeps the answer as its SDK does (Message.ToParam(),
// output items as input items, the Chat message with its reasoning_content,
// the genai Chat history), runs the tool and sends turn 2; the upstream
// asserts that every opaque value it issued comes back byte for byte in its
// native slot (Anthropic thinking text included), with the call and its
// result, and answers text. Gemini clients also run the conversation with
// thought parts left out of the replayed history, as Gemini CLI does.
func TestReasoningAgentReplay(t *testing.T) {
	env := setup(t)
	clients := replayClients()
	for _, stream := range []bool{false, true} {
		for _, up := range signingUpstreams {
			for _, cp := range allProtocols {
				for _, drop := range []bool{false, true} {
					if drop && !cp.isGoogle() {
						continue
					}
					name := modeName(stream) + "/" + pairName(cp, up)
					if drop {
						name += "/without-thought-parts"
					}
					t.Run(name, func(t *testing.T) {
						env.mocks.resetAll(t)
						runAgentReplay(t, env, clients[cp], up, replayOptions{stream: stream, dropThoughts: drop})
					})
				}
			}
		}
	}
}

// TestReasoningAgentReplayGenaiChat is TestReasoningAgentReplay for Gemini
// clients that keep the conversation in genai's Chat, the SDK's own
// conversation helper: it replays the returned Content of every turn it
// judges valid, and leaves out streamed chunks whose parts carry no data.
// Every upstream of another family that signs its reasoning, streamed and
// not.
func TestReasoningAgentReplayGenaiChat(t *testing.T) {
	env := setup(t)
	for _, stream := range []bool{false, true} {
		for _, up := range signingUpstreams {
			for _, cp := range []proto{gemini, vertex} {
				if up.family() == cp.family() {
					continue
				}
				t.Run(modeName(stream)+"/"+pairName(cp, up), func(t *testing.T) {
					env.mocks.resetAll(t)
					runAgentReplay(t, env, genaiChatClient{replayClients()[cp].(genaiClient)}, up, replayOptions{stream: stream})
				})
			}
		}
	}
}

// reasoningReaches reports whether the reasoning settings of a client of
// protocol cp, naming its default model, can reach upstream up. Converse
// writes reasoning settings only in the fields of a model it knows, which
// it tells by the Bedrock model id: only the Bedrock clients name one
// (a Claude id), and the others get a capability error.
func reasoningReaches(cp, up proto) bool {
	return up != bedrockConverse || cp.isAWS()
}

// runReasoningRefused checks a client whose reasoning settings cannot
// reach its upstream (reasoningReaches): a 400 in its protocol that says
// so, and no upstream call.
func runReasoningRefused(t *testing.T, env *testEnv, c replayClient, up proto, o replayOptions) {
	cp := c.protocol()
	name := pairName(cp, up) + " " + modeName(o.stream)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err := c.agentReplay(ctx, env.plain[up], o)
	status, _ := sdkErrorStatus(err)
	const want = "reasoning settings toward a model whose fields llmbridge does not know cannot be expressed in the bedrock protocol"
	if err == nil || status != http.StatusBadRequest || !strings.Contains(sdkErrorMessage(err), want) {
		t.Errorf("%s: the client got %v; want a 400 saying %q", name, err, want)
	}
	env.mocks.assertNoUpstreamCall(t, name)
}

func runAgentReplay(t *testing.T, env *testEnv, c replayClient, up proto, o replayOptions) {
	cp := c.protocol()
	if !reasoningReaches(cp, up) {
		runReasoningRefused(t, env, c, up, o)
		return
	}
	m := env.mocks[up]
	name := pairName(cp, up) + " " + modeName(o.stream)
	call := rzCall(up)
	m.setScenario(reasoningAnswer(up, cp.defaultModel(), o.stream))
	m.setCheck(func(body []byte) []string {
		if got := opaqueSlots(up, body); len(got) > 0 {
			return []string{fmt.Sprintf("turn 1 carries reasoning %q, want none", got)}
		}
		return nil
	})
	var turn1 *recordedRequest
	wantText := "Lisbon: sunny, 24 °C ✓ (via " + string(up) + ")"
	o.between = func() {
		rec, hits := m.lastRequest()
		if hits != 1 {
			t.Errorf("%s turn 1: the upstream received %d requests, want 1", name, hits)
		}
		turn1 = rec
		m.clearRequests()
		m.setReply(reply{Text: wantText, Stop: "end", Usage: defaultUsage})
		m.setCheck(func(body []byte) []string {
			var problems []string
			got, want := opaqueSlots(up, body), issuedOpaque(up)
			if !reflect.DeepEqual(got, want) {
				problems = append(problems, fmt.Sprintf("turn 2 carries the opaque reasoning values\n    %q\n  want what the upstream issued on turn 1, byte for byte\n    %q", got, want))
			}
			v := viewTools(up, body)
			problems = append(problems, v.Problems...)
			return append(problems, checkHistory(up, v, []mockCall{call}, map[string]string{"get_weather": rzResult})...)
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out, err := c.agentReplay(ctx, env.plain[up], o)
	rec, hits := m.lastRequest()
	if err != nil {
		if turn1 != nil {
			t.Logf("%s: turn-1 upstream request: %s", name, turn1.Body)
		}
		if rec != nil {
			t.Logf("%s: last upstream request: %s", name, rec.Body)
		}
		t.Fatalf("%s: %s", name, describeStreamErr(err))
	}
	if hits != 1 {
		t.Errorf("%s turn 2: the upstream received %d requests, want 1", name, hits)
	}
	if out.Stop1 != "tool_use" || len(out.Calls) != 1 || out.Calls[0].Name != "get_weather" {
		t.Errorf("%s turn 1: the client got stop %q and calls %+v; want tool_use and one get_weather call", name, out.Stop1, out.Calls)
	} else if !sameJSON(out.Calls[0].Args, call.Args) {
		t.Errorf("%s turn 1: the call's arguments are %s, want %s", name, out.Calls[0].Args, call.Args)
	}
	if !strings.Contains(out.Reasoning, visibleReasoning(up)) {
		t.Errorf("%s turn 1: the client was shown the reasoning %q, want it to hold the upstream's %q", name, out.Reasoning, visibleReasoning(up))
	}
	if out.Text2 != wantText || out.Stop2 != "end" {
		t.Errorf("%s turn 2: the client got %q (stop %q), want %q (end)", name, out.Text2, out.Stop2, wantText)
	}
	if t.Failed() && rec != nil {
		t.Logf("%s: turn-2 upstream request: %s", name, rec.Body)
	}
}

// refusalWant is what a client must make of a refusal.
type refusalWant struct {
	// err: the client must get an error in its protocol, not a success.
	err bool
	// text and refusal are the client's text and refusal slot.
	text, refusal string
	// wire is the client protocol's stop value (probeOutcome.Wire).
	wire string
	// explanation is Anthropic's stop_details.explanation or Gemini's
	// finishMessage; category Anthropic's stop_details.category (checked
	// only when checkCategory).
	explanation, category string
	checkCategory         bool
}

// wantRefusal is what client cp must get when upstream up refuses with k,
// following the refusal rules of docs/translation.md:
//
//   - Chat clients get the refusal text in message.refusal (content null)
//     with finish_reason stop; Responses clients a refusal content part
//     with status completed. The text is the visible refusal text, or
//     Anthropic's stop_details.explanation when there is none.
//   - Anthropic clients get the refusal as text with stop_reason refusal,
//     and stop_details only when the upstream gave some (nothing is
//     invented).
//   - Gemini clients get the refusal as model text with finishReason
//     SAFETY (the explanation goes in finishMessage, which genai drops).
//   - Converse clients get the refusal as text with stopReason
//     content_filtered (an explanation has no slot); Converse's own
//     filter stops (content_filtered, guardrail_intervened) reach every
//     client as their text with its protocol's filter stop.
//   - Streamed, Anthropic's visible refusal text has gone out as text
//     before the stop says it was a refusal: Chat and Responses clients
//     get it as text, and no duplicate refusal.
//   - Gemini filter stops (finishReason SAFETY, promptFeedback.blockReason)
//     are content filters: Chat finish_reason content_filter, Responses
//     incomplete/content_filter, Anthropic stop_reason refusal.
//   - A refusal with no text and no explanation fails toward Chat and
//     Responses (an error in the client's protocol, never a blank success).
//     A Gemini client gets finishReason SAFETY without text, which is how
//     Gemini itself reports a withheld answer.
//   - Same-family pairs are passthroughs: the client gets the upstream's
//     own answer.
func wantRefusal(cp, up proto, k refusalKind, stream bool) refusalWant {
	visible, slot := "", ""
	switch k {
	case refusalAnthropicText, refusalChat, refusalResponses:
		visible, slot = refusalText, refusalText
	case refusalAnthropicExplained:
		slot = refusalExplanation
	}
	explanation := ""
	if k == refusalAnthropicText || k == refusalAnthropicExplained {
		explanation = refusalExplanation
	}
	filter := k == refusalGeminiSafety || k == refusalGeminiBlocked
	same := cp.family() == up.family()
	if k == refusalConverseFiltered || k == refusalConverseGuardrail {
		// A Converse filter stop keeps its text: the client gets it as
		// text with its protocol's filter stop.
		switch cp.family() {
		case openaiChat:
			return refusalWant{text: refusalText, wire: "content_filter"}
		case openaiResponses:
			return refusalWant{text: refusalText, wire: "incomplete/content_filter"}
		case anthropicMsgs:
			return refusalWant{text: refusalText, wire: "refusal"}
		case gemini:
			return refusalWant{text: refusalText, wire: "SAFETY"}
		case geminiInteractions:
			return refusalWant{text: refusalText, wire: "incomplete"}
		case bedrockConverse:
			wire := "content_filtered"
			if k == refusalConverseGuardrail {
				wire = "guardrail_intervened"
			}
			return refusalWant{text: refusalText, wire: wire}
		}
	}
	if stream && k == refusalAnthropicText && cp.isOpenAI() {
		// Anthropic streams the visible text before stop_reason says it
		// was a refusal: it has gone out as ordinary text, and no
		// duplicate refusal follows (a stream cannot take back what it sent).
		if cp == openaiChat {
			return refusalWant{text: refusalText, wire: "stop"}
		}
		return refusalWant{text: refusalText, wire: "completed"}
	}
	switch cp.family() {
	case openaiChat:
		switch {
		case filter:
			return refusalWant{wire: "content_filter"}
		case slot == "":
			return refusalWant{err: true}
		}
		return refusalWant{refusal: slot, wire: "stop"}
	case openaiResponses:
		switch {
		case filter:
			return refusalWant{wire: "incomplete/content_filter"}
		case slot == "":
			return refusalWant{err: true}
		}
		return refusalWant{refusal: slot, wire: "completed"}
	case anthropicMsgs:
		if same {
			w := refusalWant{text: visible, wire: "refusal", explanation: explanation, checkCategory: true}
			if k == refusalAnthropicText {
				w.category = "cyber"
			}
			return w
		}
		if filter {
			return refusalWant{wire: "refusal"}
		}
		return refusalWant{text: slot, wire: "refusal", checkCategory: true}
	case gemini:
		switch {
		case k == refusalGeminiBlocked && same:
			return refusalWant{wire: "blocked:SAFETY"}
		case filter:
			return refusalWant{wire: "SAFETY"}
		}
		// The explanation goes into finishMessage, which genai does not
		// read (Candidate.FinishMessage stays empty): it is not checked.
		return refusalWant{text: visible, wire: "SAFETY"}
	case geminiInteractions:
		return interactionsRefusal(filter, slot)
	case bedrockConverse:
		// Converse has no refusal: a visible refusal is text, the stop
		// content_filtered. Like Gemini's, a Converse answer has no slot
		// for an explanation: without visible text the answer is the
		// text-less filter stop, which is how Bedrock itself reports a
		// withheld answer.
		if filter {
			return refusalWant{wire: "content_filtered"}
		}
		return refusalWant{text: visible, wire: "content_filtered"}
	}
	panic("unknown client " + string(cp))
}

// TestRefusal: every refusal and filter stop of every upstream, streamed
// and not, reaches every client SDK as wantRefusal says.
func TestRefusal(t *testing.T) {
	env := setup(t)
	clients := probeClients()
	for _, stream := range []bool{false, true} {
		for _, up := range allProtocols {
			for _, k := range refusalKinds(up) {
				for _, cp := range allProtocols {
					t.Run(modeName(stream)+"/"+pairName(cp, up)+"/"+string(k), func(t *testing.T) {
						env.mocks.resetAll(t)
						runRefusal(t, env, clients[cp], up, k, stream)
					})
				}
			}
		}
	}
}

func runRefusal(t *testing.T, env *testEnv, c probeClient, up proto, k refusalKind, stream bool) {
	cp := c.protocol()
	name := fmt.Sprintf("%s %s %s", pairName(cp, up), k, modeName(stream))
	env.mocks[up].setScenario(refusalAnswer(up, k, upstreamModel(cp, up, cp.defaultModel()), stream))
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out, err := c.probe(ctx, env.plain[up], probeRequest{Stream: stream})
	want := wantRefusal(cp, up, k, stream)
	if want.err {
		if err == nil {
			t.Errorf("%s: the client got a success (text %q, refusal %q, stop %q); want an error in its protocol: the refusal has no text and no explanation",
				name, out.Text, out.Refusal, out.Wire)
			return
		}
		status, ok := sdkErrorStatus(err)
		if !stream && (!ok || status != 502) {
			t.Errorf("%s: the client got %s; want a 502 in its protocol's format", name, describeStreamErr(err))
		}
		if stream && !isInStreamError(cp, err) && (!ok || status != 502) {
			t.Errorf("%s: the client got %s; want its protocol's in-stream error or a 502", name, describeStreamErr(err))
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: the client got an error: %s", name, describeStreamErr(err))
	}
	if out.Text != want.text || out.Refusal != want.refusal || out.Wire != want.wire {
		t.Errorf("%s: the client got text %q, refusal %q, stop %q; want text %q, refusal %q, stop %q",
			name, out.Text, out.Refusal, out.Wire, want.text, want.refusal, want.wire)
	}
	if cp.isAnthropic() && out.Explanation != want.explanation {
		t.Errorf("%s: the client got the explanation %q, want %q", name, out.Explanation, want.explanation)
	}
	if want.checkCategory && out.Category != want.category {
		t.Errorf("%s: the client got stop_details.category %q, want %q", name, out.Category, want.category)
	}
	if !out.Terminal {
		t.Errorf("%s: the answer ended without the protocol's end of a complete answer", name)
	}
	checkModel(t, name, cp, up, stream, out)
}

// checkModel checks that the answer names the model the upstream reported
// (no model rule applies on the plain sites): the model the client asked
// for, as the mocks report it.

func checkModel(t *testing.T, name string, cp, up proto, stream bool, out probeOutcome) {
	t.Helper()
	if !cp.answersNameModel() {
		return
	}
	if want := rzModel(up, upstreamModel(cp, up, cp.defaultModel())); out.Model != want {
		t.Errorf("%s: the answer names the model %q, want the upstream's %q", name, out.Model, want)
	}
}

// truncatedText is what the truncated answers say before the limit.
const truncatedText = "The answer was cut off at the limit of"

// maxTokensWire is the stop value each client protocol uses for output cut
// by the token limit.
var maxTokensWire = map[proto]string{
	openaiChat: "length", openaiResponses: "incomplete/max_output_tokens", anthropicMsgs: "max_tokens", gemini: "MAX_TOKENS",
	bedrockConverse: "max_tokens", geminiInteractions: "incomplete",
}

// maxTokensPath is where each upstream protocol's request carries the
// output limit (Chat clients send max_completion_tokens, which
// llmbridge also writes).
var maxTokensPath = map[proto]string{
	openaiChat: "max_completion_tokens", openaiResponses: "max_output_tokens", anthropicMsgs: "max_tokens", gemini: "generationConfig.maxOutputTokens",
	bedrockConverse: "inferenceConfig.maxTokens", geminiInteractions: "generation_config.max_output_tokens",
}

// TestMaxTokensTruncation: the client's output limit reaches every
// upstream in its field, and an answer the upstream cut at the limit
// reaches every client, streamed and not, with its text and the client
// protocol's truncation stop: Chat length, Responses
// incomplete/max_output_tokens, Anthropic max_tokens, Gemini MAX_TOKENS.
func TestMaxTokensTruncation(t *testing.T) {
	clients := probeClients()
	forAllPairs(t, func(t *testing.T, env *testEnv, cp, up proto, stream bool) {
		name := pairName(cp, up) + " " + modeName(stream)
		m := env.mocks[up]
		m.setReply(reply{Text: truncatedText, Stop: "max_tokens", Usage: defaultUsage})
		m.setCheck(func(body []byte) []string {
			if got := gjson.GetBytes(body, maxTokensPath[up.family()]); got.Int() != 64 {
				return []string{fmt.Sprintf("%s is %s, want the client's 64", maxTokensPath[up.family()], orAbsent(got))}
			}
			return nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		out, err := clients[cp].probe(ctx, env.plain[up], probeRequest{Stream: stream, MaxTokens: 64})
		if err != nil {
			t.Fatalf("%s: the client got an error: %s", name, describeStreamErr(err))
		}
		if out.Text != truncatedText || out.Wire != maxTokensWire[cp.family()] || out.Stop != "max_tokens" || !out.Terminal {
			t.Errorf("%s: the client got text %q, stop %q (%s), terminal %v; want %q, %s, terminal",
				name, out.Text, out.Wire, out.Stop, out.Terminal, truncatedText, maxTokensWire[cp.family()])
		}
		checkModel(t, name, cp, up, stream, out)
	})
}

// controlCase is one reasoning setting a client sends in its protocol's own
// field, and what each upstream family must receive: a gjson path of the
// upstream request and its JSON value, "" for a member that must be
// absent.
type controlCase struct {
	name    string
	clients []proto
	req     probeRequest
	want    map[proto]map[string]string
}

var (
	budget2048  = int32(2048)
	budgetZero  = int32(0)
	budgetDyn   = int32(-1)
	budget8192  = int32(8192)
	anthropicNo = map[string]string{"thinking": "", "output_config": ""}
	chatNo      = map[string]string{"reasoning_effort": ""}
	respNo      = map[string]string{"reasoning": "", "include": ""}
	geminiNo    = map[string]string{"generationConfig.thinkingConfig": ""}
	converseNo  = map[string]string{"additionalModelRequestFields": "", "outputConfig": ""}
)

// controlCases follow the reasoning controls of docs/translation.md with
// the default effort budgets (minimal 1024, low 2048, medium 8192, high
// 24576): an effort is a thinking budget toward Anthropic (max_tokens
// raised by the default 4096 above it when the client set no limit) and
// Gemini, a budget the smallest effort whose budget covers it toward
// OpenAI, adaptive thinking Gemini's dynamic budget -1 (and no effort
// toward OpenAI), none disabled thinking or a zero budget; reasoning asked
// of Responses comes with summary auto and encrypted content. Absent
// settings, and a Responses summary alone, inject nothing. Converse
// clients send Claude's thinking in additionalModelRequestFields, as
// Anthropic clients send it in the body.
var controlCases = []controlCase{
	{"responses-effort-high", []proto{openaiResponses}, probeRequest{Extra: map[string]any{"reasoning": map[string]any{"effort": "high"}}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("high", "auto"),
			anthropicMsgs:      {"thinking": `{"type":"enabled","budget_tokens":24576}`, "max_tokens": `28672`},
			openaiChat:         {"reasoning_effort": `"high"`},
			gemini:             {"generationConfig.thinkingConfig": `{"thinkingBudget":24576,"includeThoughts":true}`},
		}},
	{"chat-effort-none", []proto{openaiChat}, probeRequest{Extra: map[string]any{"reasoning_effort": "none"}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("", "none"),
			anthropicMsgs:      {"thinking": `{"type":"disabled"}`, "output_config": ""},
			openaiResponses:    {"reasoning": `{"effort":"none"}`},
			gemini:             {"generationConfig.thinkingConfig": `{"thinkingBudget":0}`},
		}},
	{"chat-effort-high-max-tokens-32000", []proto{openaiChat}, probeRequest{MaxTokens: 32000, Extra: map[string]any{"reasoning_effort": "high"}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("high", "auto"),
			anthropicMsgs:      {"thinking": `{"type":"enabled","budget_tokens":24576}`, "max_tokens": `32000`},
			openaiResponses:    {"reasoning": `{"effort":"high","summary":"auto"}`, "include": `["reasoning.encrypted_content"]`, "max_output_tokens": `32000`},
			gemini:             {"generationConfig.thinkingConfig": `{"thinkingBudget":24576,"includeThoughts":true}`},
		}},
	{"anthropic-budget-2048", []proto{anthropicMsgs, vertexAnthropic, bedrockConverse}, probeRequest{MaxTokens: 8000, Extra: map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 2048}}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("low", "auto"),
			openaiResponses:    {"reasoning": `{"effort":"low","summary":"auto"}`},
			openaiChat:         {"reasoning_effort": `"low"`},
			gemini:             {"generationConfig.thinkingConfig": `{"thinkingBudget":2048,"includeThoughts":true}`},
		}},
	{"anthropic-adaptive", []proto{anthropicMsgs, vertexAnthropic, bedrockConverse}, probeRequest{MaxTokens: 8000, Extra: map[string]any{"thinking": map[string]any{"type": "adaptive"}}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("", "auto"),
			openaiResponses:    {"reasoning": `{"summary":"auto"}`},
			openaiChat:         chatNo,
			gemini:             {"generationConfig.thinkingConfig": `{"thinkingBudget":-1,"includeThoughts":true}`},
		}},
	{"anthropic-disabled", []proto{anthropicMsgs, vertexAnthropic, bedrockConverse}, probeRequest{Extra: map[string]any{"thinking": map[string]any{"type": "disabled"}}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("", "none"),
			openaiResponses:    {"reasoning": `{"effort":"none"}`},
			openaiChat:         {"reasoning_effort": `"none"`},
			gemini:             {"generationConfig.thinkingConfig": `{"thinkingBudget":0}`},
		}},
	{"gemini-budget-dynamic", []proto{gemini, vertex}, probeRequest{Thinking: &genai.ThinkingConfig{ThinkingBudget: &budgetDyn}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("", "auto"),
			anthropicMsgs:      {"thinking": `{"type":"adaptive"}`},
			openaiChat:         chatNo,
			openaiResponses:    {"reasoning": `{"summary":"auto"}`},
		}},
	{"gemini-budget-zero", []proto{gemini, vertex}, probeRequest{Thinking: &genai.ThinkingConfig{ThinkingBudget: &budgetZero}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("", "none"),
			anthropicMsgs:      {"thinking": `{"type":"disabled"}`},
			openaiChat:         {"reasoning_effort": `"none"`},
			openaiResponses:    {"reasoning": `{"effort":"none"}`},
		}},
	{"gemini-budget-2048", []proto{gemini, vertex}, probeRequest{Thinking: &genai.ThinkingConfig{ThinkingBudget: &budget2048, IncludeThoughts: true}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("low", "auto"),
			anthropicMsgs:      {"thinking": `{"type":"enabled","budget_tokens":2048}`, "max_tokens": `6144`},
			openaiChat:         {"reasoning_effort": `"low"`},
			openaiResponses:    {"reasoning": `{"effort":"low","summary":"auto"}`},
		}},
	{"gemini-budget-8192", []proto{gemini, vertex}, probeRequest{Thinking: &genai.ThinkingConfig{ThinkingBudget: &budget8192}},
		map[proto]map[string]string{
			geminiInteractions: interactionsThinking("medium", "auto"),
			anthropicMsgs:      {"thinking": `{"type":"enabled","budget_tokens":8192}`, "max_tokens": `12288`},
			openaiChat:         {"reasoning_effort": `"medium"`},
			openaiResponses:    {"reasoning": `{"effort":"medium","summary":"auto"}`},
		}},
	// An Interactions client's thinking_level (the probe sends low for a
	// budget of 2048).
	{"interactions-level-low", []proto{geminiInteractions, vertexInteractions}, probeRequest{Thinking: &genai.ThinkingConfig{ThinkingBudget: &budget2048}},
		map[proto]map[string]string{
			anthropicMsgs:   {"thinking": `{"type":"enabled","budget_tokens":2048}`},
			openaiChat:      {"reasoning_effort": `"low"`},
			openaiResponses: {"reasoning": `{"effort":"low","summary":"auto"}`},
			gemini:          {"generationConfig.thinkingConfig": `{"thinkingBudget":2048,"includeThoughts":true}`},
		}},
	{"responses-summary-only", []proto{openaiResponses}, probeRequest{Extra: map[string]any{"reasoning": map[string]any{"summary": "auto"}}},
		map[proto]map[string]string{anthropicMsgs: anthropicNo, openaiChat: chatNo, gemini: geminiNo, geminiInteractions: interactionsThinking("", "")}},
	{"absent", allProtocols, probeRequest{},
		map[proto]map[string]string{anthropicMsgs: anthropicNo, openaiChat: chatNo, openaiResponses: respNo, gemini: geminiNo, bedrockConverse: converseNo,
			geminiInteractions: interactionsThinking("", "")}},
}

// TestReasoningControls: each client protocol's own reasoning setting
// reaches every upstream of another family as controlCases says, streamed
// and not.
func TestReasoningControls(t *testing.T) {
	env := setup(t)
	clients := probeClients()
	for _, cc := range controlCases {
		for _, stream := range []bool{false, true} {
			for _, cp := range cc.clients {
				for _, up := range allProtocols {
					want, ok := cc.want[up.family()]
					if !ok || up.family() == cp.family() {
						continue
					}
					t.Run(cc.name+"/"+modeName(stream)+"/"+pairName(cp, up), func(t *testing.T) {
						env.mocks.resetAll(t)
						m := env.mocks[up]
						m.setCheck(func(body []byte) []string { return checkMembers(body, want) })
						req := cc.req
						req.Stream = stream
						ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
						defer cancel()
						if _, err := clients[cp].probe(ctx, env.plain[up], req); err != nil {
							if rec, _ := m.lastRequest(); rec != nil {
								t.Logf("upstream request: %s", rec.Body)
							}
							t.Fatalf("%s %s: the client got an error: %s", cc.name, pairName(cp, up), describeStreamErr(err))
						}
						if _, hits := m.lastRequest(); hits != 1 {
							t.Errorf("%s %s: the upstream received %d requests, want 1", cc.name, pairName(cp, up), hits)
						}
					})
				}
			}
		}
	}
}

// checkMembers returns how body's members differ from want (path -> JSON
// value, "" for absent).
func checkMembers(body []byte, want map[string]string) []string {
	var problems []string
	for _, path := range sortedKeys(anyMap(want)) {
		w := want[path]
		got := gjson.GetBytes(body, path)
		switch {
		case w == "" && got.Exists():
			problems = append(problems, fmt.Sprintf("%s is %s, want it absent", path, got.Raw))
		case w != "" && !sameJSON(got.Raw, w):
			problems = append(problems, fmt.Sprintf("%s is %s, want %s", path, orAbsent(got), w))
		}
	}
	return problems
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// usageReply is the usage of TestUsage's answers, in the suite's inclusive
// meaning: 100 input tokens of which 40 read from a cache, 50 output tokens
// of which 20 reasoning.
var usageReply = usage{Input: 100, CacheRead: 40, Output: 50, Reasoning: 20}

// wantUsage is the usage client cp must get from upstream up's report of
// usageReply, in the client protocol's own fields and meaning: OpenAI
// input includes cached tokens, Anthropic input_tokens excludes them, Gemini
// candidatesTokenCount excludes thoughts. Without reasoning (thinking)
// tokens reported, no client may show any.
func wantUsage(cp proto, withReasoning bool) map[string]int64 {
	u := usageReply
	reasoning := u.Reasoning
	if !withReasoning {
		reasoning = 0
	}
	var w map[string]int64
	switch cp.family() {
	case openaiChat:
		w = map[string]int64{"prompt_tokens": u.Input, "completion_tokens": u.Output, "cached_tokens": u.CacheRead, "reasoning_tokens": reasoning}
	case openaiResponses:
		w = map[string]int64{"input_tokens": u.Input, "output_tokens": u.Output, "cached_tokens": u.CacheRead, "reasoning_tokens": reasoning}
	case anthropicMsgs:
		w = map[string]int64{"input_tokens": u.Input - u.CacheRead, "cache_read_input_tokens": u.CacheRead, "output_tokens": u.Output, "thinking_tokens": reasoning}
	case gemini:
		w = map[string]int64{"promptTokenCount": u.Input, "cachedContentTokenCount": u.CacheRead, "candidatesTokenCount": u.Output - reasoning, "thoughtsTokenCount": reasoning}
	case geminiInteractions:
		// An interaction's output count excludes thoughts, as Gemini's
		// candidatesTokenCount does.
		w = map[string]int64{"total_input_tokens": u.Input, "total_cached_tokens": u.CacheRead, "total_output_tokens": u.Output - reasoning, "total_thought_tokens": reasoning}
	case bedrockConverse:
		// Converse reports no reasoning tokens; totalTokens counts the
		// cache reads too.
		w = map[string]int64{"inputTokens": u.Input - u.CacheRead, "cacheReadInputTokens": u.CacheRead, "outputTokens": u.Output, "totalTokens": u.Input + u.Output}
	}
	for k, v := range w {
		if v == 0 {
			delete(w, k)
		}
	}
	return w
}

// TestUsage: cached and reasoning tokens reach every client, streamed and
// not, in its protocol's fields with their meaning converted
// (wantUsage). Anthropic upstreams answer twice: with thinking_tokens in
// output_tokens_details, and (the default mock answer) without, when no
// client may show reasoning tokens: a count the upstream did not report is
// absent or zero, never invented.
func TestUsage(t *testing.T) {
	clients := probeClients()
	forAllPairs(t, func(t *testing.T, env *testEnv, cp, up proto, stream bool) {
		for _, thinking := range []bool{false, true} {
			if thinking && !up.isAnthropic() {
				continue
			}
			runUsage(t, env, clients[cp], up, stream, thinking)
		}
	})
}

func runUsage(t *testing.T, env *testEnv, c probeClient, up proto, stream, thinking bool) {
	cp := c.protocol()
	name := pairName(cp, up) + " " + modeName(stream)
	const text = "Counted. ✓"
	// Anthropic's default answer and Converse report no reasoning tokens.
	withReasoning := !up.isAnthropic() && up != bedrockConverse
	if thinking {
		name += " with thinking_tokens"
		withReasoning = true
		env.mocks[up].setScenario(anthropicUsageAnswer(up, cp.defaultModel(), text, usageReply, stream))
	} else {
		env.mocks[up].setReply(reply{Text: text, Stop: "end", Usage: usageReply})
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out, err := c.probe(ctx, env.plain[up], probeRequest{Stream: stream})
	if err != nil {
		t.Fatalf("%s: the client got an error: %s", name, describeStreamErr(err))
	}
	if out.Text != text {
		t.Errorf("%s: the client got text %q, want %q", name, out.Text, text)
	}
	got := map[string]int64{}
	for k, v := range out.Usage {
		if v != 0 {
			got[k] = v
		}
	}
	// A zero that stands for "not reported" is allowed; the counts
	// that matter must be exact.
	if want := wantUsage(cp, withReasoning); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the client got usage %v, want %v", name, out.Usage, want)
	}
}
