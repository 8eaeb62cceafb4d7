package codec_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/tidwall/sjson"
)

// policyBase is the minimal valid request per client protocol family: it
// decodes and encodes toward every upstream protocol with nothing dropped.
var policyBase = map[codec.Protocol]string{
	codec.OpenAIChat:        `{"model":"m","messages":[{"role":"user","content":"Hi"}]}`,
	codec.OpenAIResponses:   `{"model":"m","input":"Hi"}`,
	codec.AnthropicMessages: `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`,
	codec.Gemini:            `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`,
	codec.Bedrock:           `{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}`,
	interactions.Gemini:     `{"model":"m","input":"Hi"}`,
}

// policyTargets are the upstream protocols a field is encoded toward: one
// per wire family (vertex and vertex-anthropic share their family's
// encoder).
var policyTargets = []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.Gemini}

// Shared example values.
const (
	exChatTools   = `[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`
	exRespTools   = `[{"type":"function","name":"f","parameters":{"type":"object"}}]`
	exClaudeTools = `[{"name":"f","input_schema":{"type":"object"}}]`
	exGemTools    = `[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object"}}]}]`
	exConvTools   = `{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}]}`
	exStepTools   = `[{"type":"function","name":"f","parameters":{"type":"object"}}]`
	exPNG         = `iVBORw0KGgo=`
	exPDF         = `JVBERi0=`
)

// policyExamples sets each field of the field tables (Descriptor.Fields) in
// its protocol's policyBase:
// pairs of sjson path and raw JSON value.
var policyExamples = map[codec.Protocol]map[string][]string{
	codec.OpenAIChat: {
		"model":                              nil,
		"messages":                           nil,
		"max_tokens":                         {"max_tokens", `16`},
		"max_completion_tokens":              {"max_completion_tokens", `16`},
		"temperature":                        {"temperature", `0.5`},
		"top_p":                              {"top_p", `0.9`},
		"presence_penalty":                   {"presence_penalty", `0.5`},
		"frequency_penalty":                  {"frequency_penalty", `0.5`},
		"seed":                               {"seed", `7`},
		"stop":                               {"stop", `["END"]`},
		"user":                               {"user", `"u1"`},
		"safety_identifier":                  {"safety_identifier", `"u1"`},
		"stream":                             {"stream", `true`},
		"stream_options.include_usage":       {"stream", `true`, "stream_options", `{"include_usage":true}`},
		"stream_options.include_obfuscation": {"stream", `true`, "stream_options", `{"include_obfuscation":false}`},
		"n":                                  {"n", `2`},
		"logprobs":                           {"logprobs", `true`},
		"top_logprobs":                       {"top_logprobs", `2`},
		"modalities":                         {"modalities", `["text","audio"]`},
		"response_format":                    {"response_format", `{"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object"}}}`},
		"response_format (json_object)":      {"response_format", `{"type":"json_object"}`},
		"reasoning_effort":                   {"reasoning_effort", `"low"`},
		"verbosity":                          {"verbosity", `"low"`},
		"tools":                              {"tools", exChatTools},
		"tools[] (custom)":                   {"tools", `[{"type":"custom","custom":{"name":"x"}}]`},
		"tool_choice":                        {"tools", exChatTools, "tool_choice", `"required"`},
		"parallel_tool_calls":                {"tools", exChatTools, "parallel_tool_calls", `false`},
		"store":                              {"store", `false`},
		"metadata":                           {"metadata", `{"k":"v"}`},
		"service_tier":                       {"service_tier", `"auto"`},
		"prompt_cache_key":                   {"prompt_cache_key", `"k"`},
		"prompt_cache_retention":             {"prompt_cache_retention", `"24h"`},
		"logit_bias":                         {"logit_bias", `{"1":1}`},
		"audio":                              {"audio", `{"voice":"alloy","format":"mp3"}`},
		"functions":                          {"functions", `[{"name":"f"}]`},
		"function_call":                      {"function_call", `"auto"`},
		"prediction":                         {"prediction", `{"type":"content","content":"x"}`},
		"web_search_options":                 {"web_search_options", `{}`},
		"messages[].name":                    {"messages.0.name", `"bob"`},
		"prompt_cache_options":               {"prompt_cache_options", `{"mode":"explicit"}`},
		"messages[].content[].prompt_cache_breakpoint": {"messages", `[{"role":"user","content":[{"type":"text","text":"Hi","prompt_cache_breakpoint":{"mode":"explicit"}}]}]`},
		"messages[].role (function)":                   {"messages", `[{"role":"user","content":"Hi"},{"role":"function","name":"f","content":"x"}]`},
		"messages[].tool_calls": {"tools", exChatTools, "messages", `[{"role":"user","content":"Hi"},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"ok"}]`},
		"messages[].reasoning_content": {"messages", `[{"role":"user","content":"Hi"},{"role":"assistant","content":"A","reasoning_content":"hm"},{"role":"user","content":"Go"}]`},
		"messages[].annotations":       {"messages", `[{"role":"user","content":"Hi"},{"role":"assistant","content":"A","annotations":[{"type":"url_citation","url_citation":{"url":"https://example.com","title":"t","start_index":0,"end_index":1}}]},{"role":"user","content":"Go"}]`},
		"messages[].parsed":            {"messages", `[{"role":"user","content":"Hi"},{"role":"assistant","content":"{\"a\":1}","parsed":{"a":1}},{"role":"user","content":"Go"}]`},
		"messages[].tool_calls[].function.parsed_arguments": {"tools", exChatTools, "messages", `[{"role":"user","content":"Hi"},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}","parsed_arguments":{}}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"ok"}]`},
		"messages[].function_call":                 {"messages", `[{"role":"user","content":"Hi"},{"role":"assistant","content":"A","function_call":{"name":"f","arguments":"{}"}},{"role":"user","content":"Go"}]`},
		"messages[].audio":                         {"messages", `[{"role":"user","content":"Hi"},{"role":"assistant","content":"A","audio":{"id":"a1"}},{"role":"user","content":"Go"}]`},
		"messages[].content[] (image_url, base64)": {"messages.0.content", `[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + exPNG + `"}}]`},
		"messages[].content[] (image_url, URL)":    {"messages.0.content", `[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]`},
		"messages[].content[].image_url.detail":    {"messages.0.content", `[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + exPNG + `","detail":"high"}}]`},
		"messages[].content[] (input_audio)":       {"messages.0.content", `[{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]`},
		"messages[].content[] (file)":              {"messages.0.content", `[{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,` + exPDF + `"}},{"type":"text","text":"Hi"}]`},
		"messages[].content[].file.file_id":        {"messages.0.content", `[{"type":"file","file":{"file_id":"file-1"}}]`},
	},
	codec.OpenAIResponses: {
		"model":                                  nil,
		"input":                                  nil,
		"instructions":                           {"instructions", `"Be brief"`},
		"max_output_tokens":                      {"max_output_tokens", `16`},
		"temperature":                            {"temperature", `0.5`},
		"top_p":                                  {"top_p", `0.9`},
		"user":                                   {"user", `"u1"`},
		"safety_identifier":                      {"safety_identifier", `"u1"`},
		"stream":                                 {"stream", `true`},
		"stream_options.include_obfuscation":     {"stream", `true`, "stream_options", `{"include_obfuscation":false}`},
		"store":                                  {"store", `false`},
		"metadata":                               {"metadata", `{"k":"v"}`},
		"client_metadata":                        {"client_metadata", `{"k":"v"}`},
		"service_tier":                           {"service_tier", `"auto"`},
		"prompt_cache_key":                       {"prompt_cache_key", `"k"`},
		"max_tool_calls":                         {"max_tool_calls", `3`},
		"truncation":                             {"truncation", `"disabled"`},
		"truncation (auto)":                      {"truncation", `"auto"`},
		"include":                                {"include", `["web_search_call.results"]`},
		"include (message.output_text.logprobs)": {"include", `["message.output_text.logprobs"]`},
		"tools":                                  {"tools", exRespTools},
		"tools[] (custom)":                       {"tools", `[{"type":"custom","name":"x"}]`},
		"tools[] (namespace)":                    {"tools", `[{"type":"namespace","name":"n","description":"d","tools":[{"type":"function","name":"f"}]}]`},
		"tools[] (web_search)":                   {"tools", `[{"type":"web_search"}]`},
		"tools[] (tool_search, file_search, ...)": {"tools", `[{"type":"tool_search"}]`},
		"tool_choice":               {"tools", exRespTools, "tool_choice", `"required"`},
		"parallel_tool_calls":       {"tools", exRespTools, "parallel_tool_calls", `false`},
		"text.format":               {"text", `{"format":{"type":"json_schema","name":"r","schema":{"type":"object"}}}`},
		"text.format (json_object)": {"text", `{"format":{"type":"json_object"}}`},
		"text.verbosity":            {"text", `{"verbosity":"low"}`},
		"reasoning.effort":          {"reasoning", `{"effort":"low"}`},
		"reasoning.summary":         {"reasoning", `{"effort":"low","summary":"auto"}`},
		"reasoning.context":         {"reasoning", `{"context":"x"}`},
		"background":                {"background", `true`},
		"top_logprobs":              {"top_logprobs", `2`},
		"previous_response_id":      {"previous_response_id", `"resp_1"`},
		"prompt_cache_options":      {"prompt_cache_options", `{"mode":"explicit"}`},
		"access_programs":           {"access_programs", `["p"]`},
		"reasoning.mode":            {"reasoning", `{"mode":"x"}`},
		"conversation":              {"conversation", `"conv_1"`},
		"prompt":                    {"prompt", `{"id":"p"}`},
		"prompt_cache_retention":    {"prompt_cache_retention", `"24h"`},
		"context_management":        {"context_management", `[{"type":"compaction"}]`},
		"moderation":                {"moderation", `{}`},
		"image":                     {"image", `{}`},
		"input[].phase": {"input", `[{"type":"message","role":"user","content":"Hi"},` +
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A"}],"phase":"commentary"},{"type":"message","role":"user","content":"Go"}]`},
		"input[].internal_chat_message_metadata_passthrough": {"tools", exRespTools, "input", `[{"type":"message","role":"user","content":"Hi",` +
			`"internal_chat_message_metadata_passthrough":{"turn_id":"t1"}},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}",` +
			`"internal_chat_message_metadata_passthrough":{"turn_id":"t1"}},{"type":"function_call_output","call_id":"c1","output":"ok"}]`},
		"input[] (function_call, function_call_output)": {"tools", exRespTools, "input", `[{"role":"user","content":"Hi"},` +
			`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]`},
		"input[].parsed_arguments": {"tools", exRespTools, "input", `[{"role":"user","content":"Hi"},` +
			`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}","parsed_arguments":{}},{"type":"function_call_output","call_id":"c1","output":"ok"}]`},
		"input[].content[].parsed": {"input", `[{"type":"message","role":"user","content":"Hi"},` +
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"{\"a\":1}","annotations":[],"parsed":{"a":1}}]},{"type":"message","role":"user","content":"Go"}]`},
		// msg_lb1 and the base64url of "t" and the text: an assistant
		// message llmbridge issued, whose text travels in its id.
		"input[] (item_reference, to an item llmbridge issued)": {"input", `[{"role":"user","content":"Hi"},{"type":"item_reference","id":"msg_lb1dEE"},{"role":"user","content":"Go"}]`},
		"input[] (item_reference)":                              {"input", `[{"role":"user","content":"Hi"},{"type":"item_reference","id":"msg_1"}]`},
		"input[].content[] (input_image, base64)":               {"input", `[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,` + exPNG + `"}]}]`},
		"input[].content[] (input_image, URL)":                  {"input", `[{"role":"user","content":[{"type":"input_image","image_url":"https://example.com/a.png"}]}]`},
		"input[].content[].detail":                              {"input", `[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,` + exPNG + `","detail":"high"}]}]`},
		"input[].content[] (input_file)":                        {"input", `[{"role":"user","content":[{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,` + exPDF + `"},{"type":"input_text","text":"Hi"}]}]`},
		"input[].content[].file_id":                             {"input", `[{"role":"user","content":[{"type":"input_file","file_id":"file-1"}]}]`},
	},
	codec.AnthropicMessages: {
		"model":              nil,
		"messages":           nil,
		"system":             {"system", `"Be brief"`},
		"max_tokens":         nil,
		"temperature":        {"temperature", `0.5`},
		"top_p":              {"top_p", `0.9`},
		"top_k":              {"top_k", `5`},
		"stop_sequences":     {"stop_sequences", `["END"]`},
		"stream":             {"stream", `true`},
		"metadata.user_id":   {"metadata", `{"user_id":"u1"}`},
		"service_tier":       {"service_tier", `"auto"`},
		"inference_geo":      {"inference_geo", `"us"`},
		"speed":              {"speed", `"fast"`},
		"context_management": {"context_management", `{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`},
		"context_management (edits clearing tool uses, compaction)": {"context_management", `{"edits":[{"type":"clear_tool_uses_20250919"},{"type":"compact_20260112"}]}`},
		"cache_control":                         {"cache_control", `{"type":"ephemeral"}`},
		"diagnostics":                           {"diagnostics", `{}`},
		"thinking":                              {"max_tokens", `4096`, "thinking", `{"type":"enabled","budget_tokens":1024}`},
		"thinking.display":                      {"max_tokens", `4096`, "thinking", `{"type":"enabled","budget_tokens":1024,"display":"summarized"}`},
		"output_config.format":                  {"output_config", `{"format":{"type":"json_schema","schema":{"type":"object"}}}`},
		"output_config.effort":                  {"max_tokens", `4096`, "output_config", `{"effort":"low"}`},
		"tools":                                 {"tools", exClaudeTools},
		"tools[].cache_control":                 {"tools", `[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]`},
		"tools[].eager_input_streaming":         {"tools", `[{"name":"f","input_schema":{"type":"object"},"eager_input_streaming":true}]`},
		"tools[] (web_search_20250305)":         {"tools", `[{"type":"web_search_20250305","name":"web_search"}]`},
		"tool_choice":                           {"tools", exClaudeTools, "tool_choice", `{"type":"any"}`},
		"tool_choice.disable_parallel_tool_use": {"tools", exClaudeTools, "tool_choice", `{"type":"auto","disable_parallel_tool_use":true}`},
		"mcp_servers":                           {"mcp_servers", `[{"type":"url","url":"https://example.com","name":"s"}]`},
		"tools[] (bash_20250124, code_execution, ...)": {"tools", `[{"type":"bash_20250124","name":"bash"}]`},
		"container":                          {"container", `"c1"`},
		"output_format":                      {"output_format", `{"type":"json_schema","schema":{"type":"object"}}`},
		"messages[].content[].cache_control": {"messages.0.content", `[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]`},
		"messages[].content[] (tool_use, tool_result)": {"tools", exClaudeTools, "messages", `[{"role":"user","content":"Hi"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]`},
		"messages[].content[] (image, base64)": {"messages.0.content", `[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + exPNG + `"}}]`},
		"messages[].content[] (image, URL)":    {"messages.0.content", `[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]`},
		"messages[].content[] (document)":      {"messages.0.content", `[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + exPDF + `"}},{"type":"text","text":"Hi"}]`},
		"messages[].content[].citations":       {"messages.0.content", `[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + exPDF + `"},"citations":{"enabled":true}}]`},
		"messages[].content[].context":         {"messages.0.content", `[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + exPDF + `"},"context":"ctx"}]`},
		"messages[].content[] (thinking)": {"messages", `[{"role":"user","content":"Hi"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"text","text":"A"}]},{"role":"user","content":"Go"}]`},
	},
	codec.Gemini: {
		"contents":                                             nil,
		"systemInstruction":                                    {"systemInstruction", `{"parts":[{"text":"Be brief"}]}`},
		"generationConfig.maxOutputTokens":                     {"generationConfig", `{"maxOutputTokens":16}`},
		"generationConfig.temperature":                         {"generationConfig", `{"temperature":0.5}`},
		"generationConfig.topP":                                {"generationConfig", `{"topP":0.9}`},
		"generationConfig.topK":                                {"generationConfig", `{"topK":5}`},
		"generationConfig.seed":                                {"generationConfig", `{"seed":7}`},
		"generationConfig.presencePenalty":                     {"generationConfig", `{"presencePenalty":0.5}`},
		"generationConfig.frequencyPenalty":                    {"generationConfig", `{"frequencyPenalty":0.5}`},
		"generationConfig.stopSequences":                       {"generationConfig", `{"stopSequences":["END"]}`},
		"generationConfig.candidateCount":                      {"generationConfig", `{"candidateCount":2}`},
		"generationConfig.responseMimeType (application/json)": {"generationConfig", `{"responseMimeType":"application/json"}`},
		"generationConfig.responseJsonSchema":                  {"generationConfig", `{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}`},
		"generationConfig.responseSchema":                      {"generationConfig", `{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT"}}`},
		"generationConfig.thinkingConfig":                      {"generationConfig", `{"thinkingConfig":{"thinkingBudget":1024}}`},
		"generationConfig.thinkingConfig.includeThoughts":      {"generationConfig", `{"thinkingConfig":{"thinkingBudget":1024,"includeThoughts":true}}`},
		"generationConfig.responseModalities":                  {"generationConfig", `{"responseModalities":["TEXT","IMAGE"]}`},
		"generationConfig.mediaResolution":                     {"generationConfig", `{"mediaResolution":"MEDIA_RESOLUTION_LOW"}`},
		"generationConfig.responseLogprobs":                    {"generationConfig", `{"responseLogprobs":true}`},
		"generationConfig.logprobs":                            {"generationConfig", `{"logprobs":2}`},
		"generationConfig.audioTimestamp":                      {"generationConfig", `{"audioTimestamp":true}`},
		"generationConfig.speechConfig":                        {"generationConfig", `{"speechConfig":{}}`},
		"generationConfig.imageConfig":                         {"generationConfig", `{"imageConfig":{}}`},
		"safetySettings":                                       {"safetySettings", `[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]`},
		"labels":                                               {"labels", `{"k":"v"}`},
		"serviceTier":                                          {"serviceTier", `"standard"`},
		"modelArmorConfig":                                     {"modelArmorConfig", `{}`},
		"model":                                                {"model", `"m"`},
		"cachedContent":                                        {"cachedContent", `"cachedContents/1"`},
		"tools":                                                {"tools", exGemTools},
		"tools[].googleSearch":                                 {"tools", `[{"googleSearch":{}}]`},
		"tools[].functionDeclarations[].response":              {"tools", `[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object"},"response":{"type":"OBJECT"}}]}]`},
		"tools[].functionDeclarations[].behavior":              {"tools", `[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object"},"behavior":"NON_BLOCKING"}]}]`},
		"toolConfig.functionCallingConfig":                     {"tools", exGemTools, "toolConfig", `{"functionCallingConfig":{"mode":"ANY"}}`},
		"toolConfig.functionCallingConfig.mode (VALIDATED)":    {"tools", exGemTools, "toolConfig", `{"functionCallingConfig":{"mode":"VALIDATED"}}`},
		"toolConfig.retrievalConfig":                           {"tools", exGemTools, "toolConfig", `{"retrievalConfig":{"languageCode":"en"}}`},
		"contents[].parts[] (functionCall, functionResponse)": {"tools", exGemTools, "contents", `[{"role":"user","parts":[{"text":"Hi"}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"ok"}}}]}]`},
		"contents[].parts[] (inlineData)": {"contents.0.parts", `[{"inlineData":{"mimeType":"image/png","data":"` + exPNG + `"}},{"text":"Hi"}]`},
		"contents[].parts[] (fileData)":   {"contents.0.parts", `[{"fileData":{"mimeType":"image/png","fileUri":"gs://b/a.png"}},{"text":"Hi"}]`},
		"contents[].parts[] (thought)": {"contents", `[{"role":"user","parts":[{"text":"Hi"}]},` +
			`{"role":"model","parts":[{"text":"hm","thought":true},{"text":"A"}]},{"role":"user","parts":[{"text":"Go"}]}]`},
		"contents[].parts[].thoughtSignature": {"contents", `[{"role":"user","parts":[{"text":"Hi"}]},` +
			`{"role":"model","parts":[{"text":"A","thoughtSignature":"c2ln"}]},{"role":"user","parts":[{"text":"Go"}]}]`},
	},
	interactions.Gemini: {
		"model":              nil,
		"input":              nil,
		"system_instruction": {"system_instruction", `"Be brief"`}, "developer_instructions": {"developer_instructions", `"Be brief"`},
		"tools":                   {"tools", exStepTools},
		"response_format":         {"response_format", `{"type":"text","mime_type":"application/json","schema":{"type":"object"}}`},
		"response_mime_type":      {"response_mime_type", `"application/json"`},
		"stream":                  {"stream", `true`},
		"store":                   {"store", `true`},
		"safety_settings":         {"safety_settings", `[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]`},
		"labels":                  {"labels", `{"k":"v"}`},
		"service_tier":            {"service_tier", `"standard"`},
		"previous_interaction_id": {"previous_interaction_id", `"v1_abc"`},
		"background":              {"background", `true`},
		"agent":                   {"agent", `"deep-research-pro-preview"`},
		"agent_config":            {"agent_config", `{"type":"deep-research"}`},
		"cached_content":          {"cached_content", `"cachedContents/1"`},
		"response_modalities, speech_config, environment, ...":    {"response_modalities", `["image"]`},
		"generation_config.temperature":                           {"generation_config", `{"temperature":0.5}`},
		"generation_config.top_p":                                 {"generation_config", `{"top_p":0.9}`},
		"generation_config.seed":                                  {"generation_config", `{"seed":7}`},
		"generation_config.max_output_tokens":                     {"generation_config", `{"max_output_tokens":16}`},
		"generation_config.stop_sequences":                        {"generation_config", `{"stop_sequences":["END"]}`},
		"generation_config.thinking_level":                        {"generation_config", `{"thinking_level":"low"}`},
		"generation_config.thinking_summaries":                    {"generation_config", `{"thinking_level":"low","thinking_summaries":"none"}`},
		"generation_config.tool_choice":                           {"tools", exStepTools, "generation_config", `{"tool_choice":"any"}`},
		"generation_config (image_config, speech_config, ...)":    {"generation_config", `{"image_config":{}}`},
		"tools[] (function)":                                      {"tools", exStepTools},
		"tools[] (google_search)":                                 {"tools", `[{"type":"google_search"}]`},
		"tools[] (code_execution, url_context, file_search, ...)": {"tools", `[{"type":"code_execution"}]`},
		"input[] (user_input)":                                    {"input", `[{"type":"user_input","content":[{"type":"text","text":"Hi"}]}]`},
		"input[] (model_output)": {"input", `[{"type":"user_input","content":"Hi"},{"type":"model_output","content":[{"type":"text","text":"A"}]},` +
			`{"type":"user_input","content":"Go"}]`},
		"input[] (thought)": {"input", `[{"type":"user_input","content":"Hi"},{"type":"thought","signature":"c2ln","summary":[{"type":"text","text":"hm"}]},` +
			`{"type":"model_output","content":[{"type":"text","text":"A"}]},{"type":"user_input","content":"Go"}]`},
		"input[] (function_call, function_result)": {"tools", exStepTools, "input", `[{"type":"user_input","content":"Hi"},` +
			`{"type":"function_call","id":"t1","name":"f","arguments":{}},{"type":"function_result","call_id":"t1","name":"f","result":"ok"}]`},
		"input[] (google_search_call, google_search_result)": {"input", `[{"type":"user_input","content":"Hi"},` +
			`{"type":"google_search_call","id":"s1","arguments":{"queries":["q"]}},{"type":"google_search_result","call_id":"s1","result":[]},` +
			`{"type":"model_output","content":[{"type":"text","text":"A"}]},{"type":"user_input","content":"Go"}]`},
		"input[].content[] (image)":    {"input", `[{"type":"image","mime_type":"image/png","data":"` + exPNG + `"},{"type":"text","text":"Hi"}]`},
		"input[].content[] (audio)":    {"input", `[{"type":"audio","mime_type":"audio/wav","data":"AAAA"},{"type":"text","text":"Hi"}]`},
		"input[].content[] (document)": {"input", `[{"type":"document","mime_type":"application/pdf","data":"` + exPDF + `"},{"type":"text","text":"Hi"}]`},
		"input[].content[] (video)":    {"input", `[{"type":"video","mime_type":"video/mp4","data":"AAAA"},{"type":"text","text":"Hi"}]`},
	},
	codec.Bedrock: {
		"messages":                          nil,
		"system":                            {"system", `[{"text":"Be brief"}]`},
		"additionalModelResponseFieldPaths": {"additionalModelResponseFieldPaths", `["/stop_sequence"]`},
		"performanceConfig":                 {"performanceConfig", `{"latency":"optimized"}`},
		"requestMetadata":                   {"requestMetadata", `{"k":"v"}`},
		"serviceTier":                       {"serviceTier", `{"type":"priority"}`},
		"guardrailConfig":                   {"guardrailConfig", `{"guardrailIdentifier":"g","guardrailVersion":"1"}`},
		"promptVariables":                   {"promptVariables", `{"x":{"text":"y"}}`},
		"system[].cachePoint":               {"system", `[{"text":"Be brief"},{"cachePoint":{"type":"default"}}]`},
		"system[].guardContent":             {"system", `[{"guardContent":{"text":{"text":"Be brief"}}}]`},
		"inferenceConfig.maxTokens":         {"inferenceConfig", `{"maxTokens":16}`},
		"inferenceConfig.temperature":       {"inferenceConfig", `{"temperature":0.5}`},
		"inferenceConfig.topP":              {"inferenceConfig", `{"topP":0.9}`},
		"inferenceConfig.stopSequences":     {"inferenceConfig", `{"stopSequences":["END"]}`},
		"messages[].content[] (image, document)": {"messages.0.content", `[{"image":{"format":"png","source":{"bytes":"` + exPNG + `"}}},` +
			`{"document":{"format":"pdf","name":"doc","source":{"bytes":"` + exPDF + `"}}},{"text":"Hi"}]`},
		"messages[].content[] (toolUse, toolResult)": {"toolConfig", exConvTools, "messages", `[{"role":"user","content":[{"text":"Hi"}]},` +
			`{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}]},` +
			`{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"ok"}]}}]}]`},
		"messages[].content[] (reasoningContent)": {"messages", `[{"role":"user","content":[{"text":"Hi"}]},` +
			`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"hm","signature":"sig"}}},{"text":"A"}]},{"role":"user","content":[{"text":"Go"}]}]`},
		"messages[].content[] (cachePoint)": {"messages.0.content", `[{"text":"Hi"},{"cachePoint":{"type":"default"}}]`},
		"messages[].content[] (citationsContent)": {"messages", `[{"role":"user","content":[{"text":"Hi"}]},` +
			`{"role":"assistant","content":[{"citationsContent":{"content":[{"text":"A"}],"citations":[{"title":"t"}]}}]},{"role":"user","content":[{"text":"Go"}]}]`},
		"messages[].content[] (guardContent, video, audio, ...)":     {"messages.0.content", `[{"text":"Hi"},{"video":{"format":"mp4","source":{"bytes":"AAAA"}}}]`},
		"messages[].content[].document.context":                      {"messages.0.content", `[{"document":{"format":"pdf","name":"doc","source":{"bytes":"` + exPDF + `"},"context":"ctx"}},{"text":"Hi"}]`},
		"messages[].content[].document.citations":                    {"messages.0.content", `[{"document":{"format":"pdf","name":"doc","source":{"bytes":"` + exPDF + `"},"citations":{"enabled":true}}},{"text":"Hi"}]`},
		"messages[].content[] (image or document in S3, or as text)": {"messages.0.content", `[{"image":{"format":"png","source":{"s3Location":{"uri":"s3://b/a.png"}}}},{"text":"Hi"}]`},
		"toolConfig.tools":                            {"toolConfig", exConvTools},
		"toolConfig.toolChoice":                       {"toolConfig", `{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"any":{}}}`},
		"toolConfig.tools[].cachePoint":               {"toolConfig", `{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default"}}]}`},
		"toolConfig.tools[].systemTool":               {"toolConfig", `{"tools":[{"systemTool":{"name":"nova_grounding"}}]}`},
		"toolConfig.tools[].toolSpec.strict":          {"toolConfig", `{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}},"strict":true}}]}`},
		"outputConfig.textFormat":                     {"outputConfig", `{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":"{\"type\":\"object\"}","name":"r"}}}}`},
		"outputConfig.effort":                         {"outputConfig", `{"effort":"high"}`},
		"additionalModelRequestFields.thinking":       {"additionalModelRequestFields", `{"thinking":{"type":"enabled","budget_tokens":2048}}`},
		"additionalModelRequestFields.top_k":          {"additionalModelRequestFields", `{"top_k":5}`},
		"additionalModelRequestFields.anthropic_beta": {"additionalModelRequestFields", `{"anthropic_beta":["x"]}`},
		"additionalModelRequestFields (other)":        {"additionalModelRequestFields", `{"foo":1}`},
	},
}

// policyBody returns protocol p's base request with the example edits.
func policyBody(t *testing.T, p codec.Protocol, edits []string) []byte {
	t.Helper()
	body := []byte(policyBase[p])
	for i := 0; i+1 < len(edits); i += 2 {
		var err error
		if body, err = sjson.SetRawBytes(body, edits[i], []byte(edits[i+1])); err != nil {
			t.Fatalf("example edit %s: %v", edits[i], err)
		}
	}
	return body
}

// observeClass decodes body as protocol p and encodes it toward every
// policy target, and returns the field class that behaviour shows, with a
// description of what happened; an error of another class is a broken
// example and returned as err.
func observeClass(p codec.Protocol, body []byte) (codec.FieldClass, string, error) {
	class, notes := codec.FieldMapped, []string{}
	decode := func() (*codec.Request, *codec.Error) {
		req := new(codec.Request)
		err := codec.DecodeRequest(p, body, req)
		if p.ModelInPath() {
			req.Model = "m"
		}
		if err != nil {
			return nil, err.(*codec.Error)
		}
		return req, nil
	}
	req, err := decode()
	if err != nil {
		if err.Class != codec.ClassCapability {
			return 0, "", errors.New("decode: " + err.Class.String() + ": " + err.Error())
		}
		return codec.FieldCapability, "decode: " + err.Error(), nil
	}
	if len(req.Dropped) > 0 {
		class, notes = codec.FieldHint, append(notes, "decode drops "+strings.Join(req.Dropped, ", "))
	}
	for _, target := range policyTargets {
		req, _ := decode()
		n := len(req.Dropped)
		_, encErr := codec.AppendRequest(nil, target, req, codec.EncodeOptions{Model: "m"})
		if encErr != nil {
			e := encErr.(*codec.Error)
			if e.Class != codec.ClassCapability {
				return 0, "", errors.New("encode to " + string(target) + ": " + e.Class.String() + ": " + e.Error())
			}
			class, notes = codec.FieldCapability, append(notes, string(target)+": "+e.Error())
			continue
		}
		if len(req.Dropped) > n {
			class = max(class, codec.FieldHint)
			notes = append(notes, string(target)+" drops "+strings.Join(req.Dropped[n:], ", "))
		}
	}
	return class, strings.Join(notes, "; "), nil
}

// TestFieldTable proves every row of fieldTable by behaviour: the row's
// example, set in a minimal request, decodes and encodes toward each
// upstream protocol as its class says (mapped: nothing dropped and no
// error anywhere; hint: dropped toward at least one upstream, rejected
// nowhere; capability: a ClassCapability error on decode or toward at least
// one upstream). It then renders the field table of docs/compatibility.md
// from fieldTable and compares it with that file between the fields markers;
// -update rewrites that section.
func TestFieldTable(t *testing.T) {
	for p := range policyBase {
		class, notes, err := observeClass(p, []byte(policyBase[p]))
		if err != nil || class != codec.FieldMapped {
			t.Fatalf("%s: the base request is %v (%s) %v, want mapped", p, class, notes, err)
		}
	}
	seen := map[codec.Protocol]map[string]bool{}
	for _, f := range fieldTable() {
		if seen[f.Protocol] == nil {
			seen[f.Protocol] = map[string]bool{}
		}
		if seen[f.Protocol][f.Path] {
			t.Errorf("%s %s: listed twice", f.Protocol, f.Path)
		}
		seen[f.Protocol][f.Path] = true
		edits, ok := policyExamples[f.Protocol][f.Path]
		if !ok {
			t.Errorf("%s %s: no example in policyExamples", f.Protocol, f.Path)
			continue
		}
		got, notes, err := observeClass(f.Protocol, policyBody(t, f.Protocol, edits))
		if err != nil {
			t.Errorf("%s %s: example is rejected for another reason: %v", f.Protocol, f.Path, err)
			continue
		}
		if got != f.Class {
			t.Errorf("%s %s: table says %v, behaviour is %v (%s)", f.Protocol, f.Path, f.Class, got, notes)
		}
	}
	for p, m := range policyExamples {
		for path := range m {
			if !seen[p][path] {
				t.Errorf("%s %s: example without a row in the field table", p, path)
			}
		}
	}

	const doc = "../docs/compatibility.md"
	const begin, end = "<!-- fields:begin -->\n", "<!-- fields:end -->"
	page, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(page, []byte(begin)), bytes.Index(page, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", doc, strings.TrimSpace(begin), end)
	}
	want := renderFieldTable()
	got := string(page[i+len(begin) : j])
	if got == want {
		return
	}
	if *codectest.Update {
		out := append(append(append([]byte{}, page[:i+len(begin)]...), want...), page[j:]...)
		if err := os.WriteFile(doc, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the field table is out of date; run go test ./codec -run TestFieldTable -update\ngot:\n%s\nwant:\n%s", doc, got, want)
}

// renderFieldTable renders fieldTable as a markdown table: one row per field
// path in order of first appearance, one column per client protocol
// family.
func renderFieldTable() string {
	cols := []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.Gemini, codec.Bedrock, interactions.Gemini}
	var order []string
	cells := map[string]map[codec.Protocol]codec.FieldClass{}
	for _, f := range fieldTable() {
		if cells[f.Path] == nil {
			cells[f.Path] = map[codec.Protocol]codec.FieldClass{}
			order = append(order, f.Path)
		}
		cells[f.Path][f.Protocol] = f.Class
	}
	var b strings.Builder
	b.WriteString("| field | openai-chat | openai-responses | anthropic-messages, vertex-anthropic | gemini, vertex | bedrock | gemini-interactions, vertex-interactions |\n|---|---|---|---|---|---|---|\n")
	for _, path := range order {
		b.WriteString("| `" + strings.Replace(path, " (", "` (", 1))
		if !strings.Contains(path, " (") {
			b.WriteString("`")
		}
		for _, p := range cols {
			b.WriteString(" | ")
			if c, ok := cells[path][p]; ok {
				b.WriteString(c.String())
			}
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

// TestRequestDrop drops what encoders reject, and leaves alone what it
// cannot drop safely.
func TestRequestDrop(t *testing.T) {
	tests := []struct {
		client    codec.Protocol
		body      string
		target    codec.Protocol
		param     string
		droppable bool
	}{
		{codec.AnthropicMessages, `{"model":"m","max_tokens":16,"top_k":5,"messages":[{"role":"user","content":"Hi"}]}`, codec.OpenAIChat, "top_k", true},
		{codec.AnthropicMessages, `{"model":"m","max_tokens":16,"stop_sequences":["x"],"messages":[{"role":"user","content":"Hi"}]}`, codec.OpenAIResponses, "stop_sequences", true},
		{codec.OpenAIChat, `{"model":"m","presence_penalty":1,"messages":[{"role":"user","content":"Hi"}]}`, codec.AnthropicMessages, "presence_penalty", true},
		{codec.OpenAIChat, `{"model":"m","frequency_penalty":1,"messages":[{"role":"user","content":"Hi"}]}`, codec.OpenAIResponses, "frequency_penalty", true},
		{codec.OpenAIChat, `{"model":"m","verbosity":"low","messages":[{"role":"user","content":"Hi"}]}`, codec.Gemini, "verbosity", true},
		{codec.OpenAIChat, `{"model":"m","response_format":{"type":"json_object"},"messages":[{"role":"user","content":"Hi"}]}`, codec.AnthropicMessages, "output_config.format", true},
		{codec.OpenAIChat, `{"model":"m","tools":[{"type":"function","function":{"name":"f","strict":true,"parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"Hi"}]}`,
			codec.AnthropicMessages, "tools[0].strict", true},
		{codec.OpenAIChat, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Hi"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`,
			codec.Gemini, "messages[0].content[1]", true},
		{codec.OpenAIChat, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Hi"},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`,
			codec.OpenAIResponses, "messages[0].parts[1]", true},
		{codec.AnthropicMessages, `{"model":"m","max_tokens":1000,"thinking":{"type":"enabled","budget_tokens":2000},"messages":[{"role":"user","content":"Hi"}]}`,
			codec.AnthropicMessages, "", false},
	}
	for _, tt := range tests {
		req := new(codec.Request)
		if err := codec.DecodeRequest(tt.client, []byte(tt.body), req); err != nil {
			t.Errorf("%s: decode: %v", tt.body, err)
			continue
		}
		_, err := codec.AppendRequest(nil, tt.target, req, codec.EncodeOptions{Model: "m"})
		e, _ := err.(*codec.Error)
		if e == nil {
			if tt.droppable {
				t.Errorf("%s toward %s: no error", tt.body, tt.target)
			}
			continue
		}
		if e.Class != codec.ClassCapability || tt.param != "" && e.Param != tt.param {
			t.Errorf("%s toward %s: error %v (class %v), want capability at %s", tt.body, tt.target, e, e.Class, tt.param)
			continue
		}
		if got := req.Drop(e.Capability); got != tt.droppable {
			t.Errorf("%s toward %s: Drop(%s) = %v", tt.body, tt.target, e.Param, got)
			continue
		}
		if !tt.droppable {
			continue
		}
		if _, err := codec.AppendRequest(nil, tt.target, req, codec.EncodeOptions{Model: "m"}); err != nil {
			t.Errorf("%s toward %s: after Drop(%s): %v", tt.body, tt.target, e.Param, err)
		}
	}
	req := &codec.Request{Tools: []codec.Tool{{Name: "a"}, {Name: "b"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "b"}}
	if !req.Drop(codec.Capability{Kind: codec.CapTool, Tool: 1}) || len(req.Tools) != 1 || req.ToolChoice != (codec.ToolChoice{}) {
		t.Errorf("Drop(tool 1) left %+v", req)
	}
	for _, c := range []codec.Capability{{}, {Kind: codec.CapTool, Tool: 5}, {Kind: codec.CapToolStrict, Tool: -1}, codec.PartCapability(0, 0),
		codec.PartCapability(-1, 0), {Kind: codec.CapResultContent, Message: 0}, {Kind: codec.CapTopK}, {Kind: codec.CapFormat}, {Kind: codec.CapEffort},
		{Kind: codec.CapToolChoice}, {Kind: codec.CapStopSequences}, {Kind: codec.CapVerbosity}, {Kind: codec.CapPresencePenalty}, {Kind: codec.CapFrequencyPenalty}} {
		if (&codec.Request{}).Drop(c) {
			t.Errorf("Drop(%+v) on an empty request succeeded", c)
		}
	}
}

// fieldRow is a row of a family's field table.
type fieldRow struct {
	Protocol codec.Protocol
	codec.Field
}

// fieldTable is the rows of every family's field table (Descriptor.Fields,
// on the protocol that names the family).
func fieldTable() []fieldRow {
	var rows []fieldRow
	for _, p := range codec.Protocols() {
		for _, f := range p.Descriptor().Fields {
			rows = append(rows, fieldRow{p, f})
		}
	}
	return rows
}
