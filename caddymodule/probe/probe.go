// Package probe holds what the llmbridge-probe command measures of an
// upstream model: the minimal requests that each test one rule (sampling
// settings, each reasoning effort or Gemini thinking level and budget,
// tools with an effort, stop sequences, penalties, a trailing assistant
// message, disabled thinking, the output cap, a dialect's roles), written
// in the first-party protocol of the upstream's family, and the
// model_rule their outcomes imply; and the run itself (Run): each request
// sent through the very handler the directive configures (Site, which
// the handler package provisions for the run), the outcomes printed and
// reported. It imports the codec, its rules and caddymodule/policy (the
// model_rule block it prints), never the handler package.
package probe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// Result is one probe's outcome.
type Result struct {
	// Name says what the probe tests.
	Name string
	// Accepted reports a 2xx answer; Status and Message are the refusal's
	// otherwise.
	Accepted bool
	Status   int
	Message  string
}

// Request is one probe: what it tests (Name) and its body (Body) in the client
// protocol of the upstream's family.
type Request struct {
	Name string
	Body string
}

// The probe names the results are read back by.
const (
	probeBaseline    = "baseline"
	probeTemperature = "temperature 0.5"
	probeTopP        = "top_p 0.9"
	probeBoth        = "temperature 0.5 with top_p 0.9"
	probeTempNone    = "temperature 0.5 at effort none"
	probeTempOn      = "temperature 0.5 at the lowest effort above none the model took"
	probeStop        = "stop sequences"
	probePresence    = "presence penalty"
	probeFrequency   = "frequency penalty"
	probeToolsBare   = "function tools, no effort"
	probeToolsNone   = "function tools at effort none"
	probeToolsHigh   = "function tools at effort high"
	probePrefill     = "a trailing assistant message"
	probeDisabled    = "thinking disabled"
	probeAdaptive    = "adaptive thinking"
	probeForced      = "a forced tool choice"
	probeCap         = "an output limit of 100000000 (its refusal names the cap)"
	probeDeveloper   = "the developer role"
	probeUserAfter   = "a user message right after a tool message"
	Effort           = "effort "
	probeLevel       = "thinking level "
	probeBudget      = "thinking budget "
	probeUnsigned    = "a function call without a thought signature"
)

var probeEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// probeLevels are the Gemini thinking levels probed.
var probeLevels = []string{"minimal", "low", "medium", "high", "xhigh"}

// For returns the client protocol the probes are written in (the
// first-party protocol of the upstream's family) and the probes.
func For(up codec.Protocol, dialect bool) (codec.Protocol, []Request, error) {
	const user = `[{"role":"user","content":"Say OK."}]`
	var ps []Request
	add := func(name, body string) { ps = append(ps, Request{Name: name, Body: body}) }
	switch up.Family() {
	case codec.OpenAIChat:
		base := `{"model":"%MODEL%","max_completion_tokens":16,"messages":` + user
		tool := `,"tools":[{"type":"function","function":{"name":"ping","parameters":{"type":"object","properties":{}}}}]`
		add(probeBaseline, base+`}`)
		add(probeTemperature, base+`,"temperature":0.5}`)
		add(probeTopP, base+`,"top_p":0.9}`)
		add(probeBoth, base+`,"temperature":0.5,"top_p":0.9}`)
		add(probeTempNone, base+`,"temperature":0.5,"reasoning_effort":"none"}`)
		for _, e := range probeEfforts {
			add(Effort+e, base+`,"reasoning_effort":"`+e+`"}`)
		}
		add(probeTempOn, base+`,"temperature":0.5,"reasoning_effort":"%EFFORT%"}`)
		add(probeStop, base+`,"stop":["\n\n\n"]}`)
		add(probePresence, base+`,"presence_penalty":0.5}`)
		add(probeFrequency, base+`,"frequency_penalty":0.5}`)
		add(probeToolsBare, base+tool+`}`)
		add(probeToolsNone, base+tool+`,"reasoning_effort":"none"}`)
		add(probeToolsHigh, base+tool+`,"reasoning_effort":"high"}`)
		add(probeCap, `{"model":"%MODEL%","max_completion_tokens":100000000,"messages":`+user+`}`)
		if dialect {
			// A model that thinks by default may refuse a forced tool
			// choice unless thinking is turned off (DeepSeek V4: "Thinking
			// mode does not support this tool_choice").
			add(probeForced, base+tool+`,"tool_choice":"required"}`)
			add(probeDeveloper, `{"model":"%MODEL%","max_completion_tokens":16,"messages":[{"role":"developer","content":"Be brief."},{"role":"user","content":"Say OK."}]}`)
			add(probeUserAfter, `{"model":"%MODEL%","max_completion_tokens":16,"messages":[{"role":"user","content":"Ping."},`+
				`{"role":"assistant","content":null,"tool_calls":[{"id":"A1b2C3d4E","type":"function","function":{"name":"ping","arguments":"{}"}}]},`+
				`{"role":"tool","tool_call_id":"A1b2C3d4E","content":"pong"},{"role":"user","content":"Say OK."}]`+tool+`}`)
		}
		return codec.OpenAIChat, ps, nil
	case codec.OpenAIResponses:
		base := `{"model":"%MODEL%","max_output_tokens":16,"input":"Say OK."`
		add(probeBaseline, base+`}`)
		add(probeTemperature, base+`,"temperature":0.5}`)
		add(probeTopP, base+`,"top_p":0.9}`)
		add(probeBoth, base+`,"temperature":0.5,"top_p":0.9}`)
		add(probeTempNone, base+`,"temperature":0.5,"reasoning":{"effort":"none"}}`)
		for _, e := range probeEfforts {
			add(Effort+e, base+`,"reasoning":{"effort":"`+e+`"}}`)
		}
		add(probeTempOn, base+`,"temperature":0.5,"reasoning":{"effort":"%EFFORT%"}}`)
		add(probeCap, `{"model":"%MODEL%","max_output_tokens":100000000,"input":"Say OK."}`)
		return codec.OpenAIResponses, ps, nil
	case codec.AnthropicMessages:
		base := `{"model":"%MODEL%","max_tokens":16,"messages":` + user
		add(probeBaseline, base+`}`)
		add(probeTemperature, base+`,"temperature":0.5}`)
		add(probeTopP, base+`,"top_p":0.9}`)
		add(probeBoth, base+`,"temperature":0.5,"top_p":0.9}`)
		add(probeStop, base+`,"stop_sequences":["\n\n\n"]}`)
		add(probeDisabled, base+`,"thinking":{"type":"disabled"}}`)
		add(probeAdaptive, base+`,"thinking":{"type":"adaptive"}}`)
		for _, e := range probeEfforts[2:] {
			add(Effort+e, base+`,"thinking":{"type":"adaptive"},"output_config":{"effort":"`+e+`"}}`)
		}
		add(probePrefill, `{"model":"%MODEL%","max_tokens":16,"messages":[{"role":"user","content":"Say OK."},{"role":"assistant","content":"O"}]}`)
		add(probeForced, base+`,"tools":[{"name":"ping","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"}}`)
		add(probeCap, `{"model":"%MODEL%","max_tokens":100000000,"messages":`+user+`}`)
		return codec.AnthropicMessages, ps, nil
	case codec.Gemini:
		gen := func(extra string) string {
			return `{"contents":[{"role":"user","parts":[{"text":"Say OK."}]}],"generationConfig":{"maxOutputTokens":16` + extra + `}}`
		}
		add(probeBaseline, gen(""))
		add(probeTemperature, gen(`,"temperature":0.5`))
		add(probeTopP, gen(`,"topP":0.9`))
		add(probeBoth, gen(`,"temperature":0.5,"topP":0.9`))
		add(probeStop, gen(`,"stopSequences":["\n\n\n"]`))
		add(probePresence, gen(`,"presencePenalty":0.5`))
		add(probeFrequency, gen(`,"frequencyPenalty":0.5`))
		for _, l := range probeLevels {
			add(probeLevel+l, gen(`,"thinkingConfig":{"thinkingLevel":"`+strings.ToUpper(l)+`"}`))
		}
		for _, b := range []int{0, 1, 128, 512, 1024, 24576, 32768} {
			add(probeBudget+strconv.Itoa(b), gen(`,"thinkingConfig":{"thinkingBudget":`+strconv.Itoa(b)+`}`))
		}
		add(probePrefill, `{"contents":[{"role":"user","parts":[{"text":"Say OK."}]},{"role":"model","parts":[{"text":"O"}]}],"generationConfig":{"maxOutputTokens":16}}`)
		add(probeCap, `{"contents":[{"role":"user","parts":[{"text":"Say OK."}]}],"generationConfig":{"maxOutputTokens":100000000}}`)
		// A tool turn whose call carries no thought signature: Gemini 3
		// and later refuse it.
		add(probeUnsigned, `{"contents":[{"role":"user","parts":[{"text":"Ping."}]},{"role":"model","parts":[{"functionCall":{"name":"ping","args":{}}}]},`+
			`{"role":"user","parts":[{"functionResponse":{"name":"ping","response":{"result":"pong"}}}]}],`+
			`"tools":[{"functionDeclarations":[{"name":"ping","parameters":{"type":"object","properties":{}}}]}],"generationConfig":{"maxOutputTokens":16}}`)
		return codec.Gemini, ps, nil
	}
	return "", nil, fmt.Errorf("upstream %s: the probe speaks OpenAI Chat and Responses, Anthropic Messages (also on Vertex AI and Bedrock) and Gemini (also on Vertex AI); probe a Bedrock Claude model with --upstream bedrock-anthropic", up)
}

// Implied returns the model_rule the probe results imply for model, and
// the findings a rule cannot hold.
func Implied(up codec.Protocol, provider, model string, results []Result) (rules.Rule, []string) {
	ok := map[string]bool{}
	msg := map[string]string{}
	for _, r := range results {
		ok[r.Name], msg[r.Name] = r.Accepted, r.Message
	}
	refused := func(name string) bool { _, ran := ok[name]; return ran && !ok[name] }
	r := rules.Rule{Models: []string{model}}
	var notes []string
	today := time.Now().UTC().Format(time.DateOnly)
	r.Sources = []string{"measured by caddy llmbridge-probe on " + today}
	r.Verified = today
	var efforts []string
	for _, e := range probeEfforts {
		if ok[Effort+e] {
			efforts = append(efforts, e)
		}
	}
	if refused(probeCap) {
		if l, learned := rules.Learn(nil, msg[probeCap]); learned && l.Rule.MaxOutput > 0 {
			r.MaxOutput = l.Rule.MaxOutput
		}
	}
	if refused(probeBaseline) && up.Family() == codec.OpenAIChat {
		if l, learned := rules.Learn(nil, msg[probeBaseline]); learned && l.Rule.ResponsesOnly {
			// Every probe was refused for the endpoint, not the setting.
			r.ResponsesOnly, r.MaxOutput = true, 0
			notes = append(notes, "the model is served only by the Responses API: probe it with --upstream openai-responses")
			return r, notes
		}
	}
	switch up.Family() {
	case codec.OpenAIChat, codec.OpenAIResponses:
		switch {
		case len(efforts) > 0:
			r.Reasoning, r.Efforts = rules.ReasoningEffort, efforts
		case refused(Effort + "medium"):
			r.Reasoning = rules.ReasoningNone
		}
		switch {
		case refused(probeTemperature) && ok[probeTempNone]:
			r.Sampling = rules.SamplingFixedWhenReasoning
			// Sampling needs effort none given: the default is not none.
			// Which effort it is is not measured; any other than none
			// fits requests the same way.
			r.DefaultEffort = defaultGuess(efforts)
		case ok[probeTemperature] && refused(probeTempOn) && ok[probeTempNone]:
			r.Sampling, r.DefaultEffort = rules.SamplingFixedWhenReasoning, "none"
		case refused(probeTemperature) || refused(probeTopP):
			r.Sampling = rules.SamplingFixed
		case refused(probeBoth):
			r.Sampling = rules.SamplingExclusive
		}
		// Function tools refused with an effort the model takes without
		// them, or with its default effort but not with none.
		switch {
		case refused(probeToolsNone) && refused(probeToolsBare) && refused(probeToolsHigh) && len(efforts) > 0:
			r.ChatTools = rules.ChatToolsResponses
		case ok[Effort+"high"] && refused(probeToolsHigh) || refused(probeToolsBare) && ok[probeToolsNone]:
			r.ChatTools = rules.ChatToolsEffortNone
			if refused(probeToolsBare) && r.DefaultEffort == "" {
				r.DefaultEffort = defaultGuess(efforts)
			}
		}
		if l, learned := rules.Learn(nil, msg[probeForced]); refused(probeForced) && learned && l.Rule.ThinkingOff == rules.ThinkingOffDisabled {
			// The model thinks unless thinking.type is disabled.
			r.ThinkingOff = rules.ThinkingOffDisabled
		}
		if refused(probeDeveloper) {
			notes = append(notes, "the server refuses the developer role: its dialect needs system_role system")
		}
		if refused(probeUserAfter) {
			notes = append(notes, "the server refuses a user message right after a tool message: its dialect needs assistant_after_tool")
		}
	case codec.AnthropicMessages:
		switch {
		case ok[probeAdaptive] && len(efforts) > 0:
			r.Reasoning, r.Efforts = rules.ReasoningAdaptive, efforts
			notes = append(notes, "thinking with a budget is not probed (it needs more than 1024 output tokens): the row says adaptive; write reasoning budget+adaptive if the model also takes budget_tokens")
		case refused(probeAdaptive):
			r.Reasoning = rules.ReasoningBudget
		}
		switch {
		case refused(probeTemperature) || refused(probeTopP):
			r.Sampling = rules.SamplingFixed
		case refused(probeBoth):
			r.Sampling = rules.SamplingExclusive
		}
		if refused(probeDisabled) {
			r.ThinkingOff = rules.ThinkingOffOmit
			if refused(probeForced) {
				r.AlwaysThinks = true
			}
		}
		if refused(probePrefill) {
			r.NoPrefill = true
		}
	case codec.Gemini:
		var levels []string
		for _, l := range probeLevels {
			if ok[probeLevel+l] {
				levels = append(levels, l)
			}
		}
		var lo, hi int64
		for _, b := range []int64{1, 128, 512, 1024, 24576, 32768} {
			if ok[probeBudget+strconv.FormatInt(b, 10)] {
				if lo == 0 {
					lo = b
				}
				hi = b
			}
		}
		switch {
		case len(levels) > 0:
			r.Reasoning, r.Efforts = rules.ReasoningLevel, levels
			r.AlwaysThinks = refused(probeBudget + "0")
			if hi == 0 {
				notes = append(notes, "every thinking budget was refused: thinking by level only (a budget is sent as its nearest level)")
			}
		case hi > 0:
			r.Reasoning, r.BudgetMin, r.BudgetMax = rules.ReasoningBudget, lo, hi
			r.AlwaysThinks = refused(probeBudget + "0")
			notes = append(notes, "the budget range is bounded by the budgets probed (1, 128, 512, 1024, 24576, 32768)")
		case refused(probeBudget+"1024") && refused(probeLevel+"low"):
			r.Reasoning = rules.ReasoningNone
		}
		if refused(probePrefill) {
			r.NoPrefill = true
		}
		r.SignedCalls = refused(probeUnsigned) && strings.Contains(msg[probeUnsigned], "thought_signature")
	}
	if refused(probeStop) {
		r.Rejects = append(r.Rejects, "stop")
	}
	if refused(probePresence) {
		r.Rejects = append(r.Rejects, "presence_penalty")
	}
	if refused(probeFrequency) {
		r.Rejects = append(r.Rejects, "frequency_penalty")
	}
	if provider != "" && provider != "openai" && provider != "anthropic" && provider != "google" {
		r.Provider = provider
	}
	return r, notes
}

// defaultGuess is the effort a model whose default is not none is said to
// default to: medium when it takes it, else its lowest effort above none.
func defaultGuess(efforts []string) string {
	if slices.Contains(efforts, "medium") {
		return "medium"
	}
	for _, e := range efforts {
		if v, _ := mapping.ParseEffort(e); v > mapping.EffortNone {
			return e
		}
	}
	return ""
}
