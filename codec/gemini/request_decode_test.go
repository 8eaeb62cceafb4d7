package gemini

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// geminiText returns a message of one text part.
func geminiText(role codec.Role, text string) codec.Message {
	return codec.Message{Role: role, Parts: []codec.Part{{Type: codec.PartText, Text: text}}}
}

// decode decodes body as a protocol p request into a fresh Request.
func decode(t *testing.T, p codec.Protocol, body string) (codec.Request, *codec.Error) {
	t.Helper()
	var req codec.Request
	err := codec.DecodeRequest(p, []byte(body), &req)
	if err == nil {
		return req, nil
	}
	var e *codec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return req, e
}

func TestGeminiDecodeRequest(t *testing.T) {
	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{
			name: "minimal, role defaults to user",
			body: `{"contents":[{"parts":[{"text":"hi"}]}]}`,
			want: codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "hi")}},
		},
		{
			name: "camelCase fields and harmless defaults",
			body: `{
				"contents":[
					{"role":"user","parts":[{"text":"Hello"},{"text":" there","thought":false}]},
					{"role":"model","parts":[{"text":"Hi!"}]},
					{"role":"user","parts":[{"text":""}]}
				],
				"systemInstruction":{"role":"user","parts":[{"text":"Be brief."},{"text":"Be kind."}]},
				"generationConfig":{
					"maxOutputTokens":256,"temperature":0.7,"topP":0.9,"topK":40,
					"stopSequences":["END","STOP"],"seed":42,
					"presencePenalty":0.5,"frequencyPenalty":-0.25,
					"candidateCount":1,"responseMimeType":"text/plain","responseModalities":["TEXT"],
					"responseLogprobs":false,"logprobs":0,"audioTimestamp":false
				},
				"tools":[]
			}`,
			want: codec.Request{
				System:     []codec.Part{{Type: codec.PartText, Text: "Be brief."}, {Type: codec.PartText, Text: "Be kind."}},
				SystemRole: codec.RoleSystem,
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Hello"}, {Type: codec.PartText, Text: " there"}}},
					geminiText(codec.RoleAssistant, "Hi!"),
					geminiText(codec.RoleUser, ""),
				},
				MaxTokens:        codec.OptInt{Value: 256, Set: true},
				Temperature:      codec.OptFloat{Value: 0.7, Set: true},
				TopP:             codec.OptFloat{Value: 0.9, Set: true},
				TopK:             codec.OptInt{Value: 40, Set: true},
				StopSequences:    []string{"END", "STOP"},
				Seed:             codec.OptInt{Value: 42, Set: true},
				PresencePenalty:  codec.OptFloat{Value: 0.5, Set: true},
				FrequencyPenalty: codec.OptFloat{Value: -0.25, Set: true},
			},
		},
		{
			name: "snake_case fields",
			body: `{
				"system_instruction":{"parts":[{"text":"sys"}]},
				"contents":[{"role":"user","parts":[{"text":"q"}]}],
				"generation_config":{
					"max_output_tokens":10,"top_p":0.5,"top_k":3.0,"stop_sequences":["x"],
					"presence_penalty":1,"frequency_penalty":2,"candidate_count":0,
					"response_mime_type":"","response_modalities":[],
					"response_logprobs":false,"audio_timestamp":false,
					"response_schema":null,"response_json_schema":null,"thinking_config":null,
					"speech_config":null,"image_config":null
				},
				"safety_settings":[],"cached_content":null,"tool_config":null,"service_tier":"standard",
				"model_armor_config":{}
			}`,
			want: codec.Request{
				System:           []codec.Part{{Type: codec.PartText, Text: "sys"}},
				SystemRole:       codec.RoleSystem,
				Messages:         []codec.Message{geminiText(codec.RoleUser, "q")},
				MaxTokens:        codec.OptInt{Value: 10, Set: true},
				TopP:             codec.OptFloat{Value: 0.5, Set: true},
				TopK:             codec.OptInt{Value: 3, Set: true},
				StopSequences:    []string{"x"},
				PresencePenalty:  codec.OptFloat{Value: 1, Set: true},
				FrequencyPenalty: codec.OptFloat{Value: 2, Set: true},
				Dropped:          []string{"safety_settings", "service_tier", "model_armor_config"},
			},
		},
		{
			name: "hints are recorded in Dropped",
			body: `{
				"model":"models/gemini-2.5-flash",
				"contents":[{"parts":[{"text":"q"}]}],
				"safetySettings":[{"category":"HARM_CATEGORY_HATE_SPEECH","threshold":"BLOCK_LOW_AND_ABOVE"}],
				"labels":{"team":"a"},
				"serviceTier":"flex",
				"modelArmorConfig":{"promptTemplateName":"t"},
				"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}
			}`,
			want: codec.Request{
				Messages: []codec.Message{geminiText(codec.RoleUser, "q")},
				Dropped: []string{"model", "safetySettings", "labels", "serviceTier", "modelArmorConfig",
					"generationConfig.mediaResolution"},
			},
		},
		{
			name: "null means absent everywhere",
			body: `{
				"contents":[{"role":null,"parts":[{"text":"q","thought":null,"thoughtSignature":null,"inlineData":null}]}],
				"systemInstruction":null,"generationConfig":null,"safetySettings":null,"labels":null,
				"model":null,"serviceTier":null,"modelArmorConfig":null,"cachedContent":null,
				"tools":null,"toolConfig":null
			}`,
			want: codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "q")}},
		},
		{
			name: "null optional fields inside objects",
			body: `{
				"contents":[{"parts":[{"text":"q"}]}],
				"systemInstruction":{"role":null,"parts":null},
				"generationConfig":{
					"maxOutputTokens":null,"temperature":null,"topP":null,"topK":null,"seed":null,
					"presencePenalty":null,"frequencyPenalty":null,"stopSequences":null,
					"candidateCount":null,"responseMimeType":null,"responseModalities":null,
					"mediaResolution":null,"responseLogprobs":null,"logprobs":null,"audioTimestamp":null,
					"responseSchema":null,"responseJsonSchema":null,"thinkingConfig":null,
					"speechConfig":null,"imageConfig":null
				}
			}`,
			want: codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "q")}},
		},
		{
			name: "empty system instruction",
			body: `{"systemInstruction":{"parts":[]},"contents":[{"parts":[{"text":"q"}]}]}`,
			want: codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "q")}},
		},
		{
			name: "system before contents and many parts grow the backing slice",
			body: `{"systemInstruction":{"parts":[{"text":"s1"},{"text":"s2"},{"text":"s3"}]},
				"contents":[
					{"role":"user","parts":[{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"}]},
					{"role":"model","parts":[{"text":"e"},{"text":"f"},{"text":"g"},{"text":"h"}]}
				]}`,
			want: codec.Request{
				System:     []codec.Part{{Text: "s1"}, {Text: "s2"}, {Text: "s3"}},
				SystemRole: codec.RoleSystem,
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{{Text: "a"}, {Text: "b"}, {Text: "c"}, {Text: "d"}}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Text: "e"}, {Text: "f"}, {Text: "g"}, {Text: "h"}}},
				},
			},
		},
		{
			name: "a repeated field keeps its last value",
			body: `{"contents":[{"parts":[{"text":"first"}]}],"contents":[{"parts":[{"text":"second"}]}],
				"generationConfig":{"stopSequences":["a"],"stop_sequences":["b"]}}`,
			want: codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "second")}, StopSequences: []string{"b"}},
		},
		{
			name: "escaped text",
			body: `{"contents":[{"parts":[{"text":"line\n\"quoted\" \u00e9"}]}]}`,
			want: codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "line\n\"quoted\" é")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.Gemini, codec.Vertex} {
				got, err := decode(t, p, tt.body)
				if err != nil {
					t.Fatalf("%s: unexpected error: %v", p, err)
				}
				if !codectest.EqualDecoded(got, tt.want) {
					t.Errorf("%s:\n got %+v\nwant %+v", p, got, tt.want)
				}
			}
		})
	}
}

// TestGeminiDecodeRequestReuse checks that a Reset request decodes like a
// fresh one.
func TestGeminiDecodeRequestReuse(t *testing.T) {
	var req codec.Request
	first := `{"systemInstruction":{"parts":[{"text":"s"}]},"contents":[{"parts":[{"text":"a"}]},{"role":"model","parts":[{"text":"b"}]}],"generationConfig":{"stopSequences":["x"]},"labels":{}}`
	if err := codec.DecodeRequest(codec.Gemini, []byte(first), &req); err != nil {
		t.Fatal(err)
	}
	req.Reset()
	if err := codec.DecodeRequest(codec.Gemini, []byte(`{"contents":[{"parts":[{"text":"c"}]}]}`), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 1 || req.Messages[0].Parts[0].Text != "c" || len(req.System) != 0 ||
		len(req.StopSequences) != 0 || len(req.Dropped) != 0 {
		t.Errorf("reused request: %+v", req)
	}
}

// callTurn is a model turn with one call of f, without id.
const callTurn = `{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}`

func TestGeminiDecodeRequestErrors(t *testing.T) {
	const ok = `"contents":[{"parts":[{"text":"q"}]}]`
	tests := []struct {
		name  string
		body  string
		param string
		msg   string
	}{
		{"not an object", `[]`, "", "must be a JSON object"},
		{"contents missing", `{}`, "contents", "is required"},
		{"contents null", `{"contents":null}`, "contents", "is required"},
		{"contents not array", `{"contents":{}}`, "contents", "expected array, got object"},
		{"contents empty", `{"contents":[]}`, "contents", "must not be empty"},
		{"content not object", `{"contents":["hi"]}`, "contents[0]", "expected object, got string"},
		{"role wrong type", `{"contents":[{"role":1,"parts":[{"text":"q"}]}]}`, "contents[0].role", "expected string"},
		{"role unknown", `{"contents":[{"role":"system","parts":[{"text":"q"}]}]}`, "contents[0].role", `"user" or "model"`},
		{"parts missing", `{"contents":[{"role":"user"}]}`, "contents[0].parts", "is required"},
		{"parts null", `{"contents":[{"parts":null}]}`, "contents[0].parts", "is required"},
		{"parts empty", `{"contents":[{"parts":[]}]}`, "contents[0].parts", "must not be empty"},
		{"parts not array", `{"contents":[{"parts":"q"}]}`, "contents[0].parts", "expected array"},
		{"content unknown field", `{"contents":[{"parts":[{"text":"q"}],"author":"me"}]}`, "contents[0].author", "unknown field"},
		{"part not object", `{"contents":[{"parts":[{"text":"q"},"r"]}]}`, "contents[0].parts[1]", "expected object"},
		{"part without text", `{"contents":[{"parts":[{}]}]}`, "contents[0].parts[0].text", "is required"},
		{"text wrong type", `{"contents":[{"parts":[{"text":7}]}]}`, "contents[0].parts[0].text", "expected string, got number"},
		{"thought part in a user turn", `{"contents":[{"parts":[{"text":"hmm","thought":true}],"role":"user"}]}`, "contents[0].parts[0].thought", `only allowed in "model" turns`},
		{"thought part in the system instruction", `{` + ok + `,"systemInstruction":{"parts":[{"text":"hmm","thought":true}]}}`, "systemInstruction.parts[0].thought", `only allowed in "model" turns`},
		{"thought on a function call", `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f"},"thought":true}]}]}`, "contents[0].parts[0].thought", "only a text part"},
		{"thought signature that is a malformed envelope", `{"contents":[{"role":"model","parts":[{"text":"a","thoughtSignature":"llmbridge.v1.!!"}]}]}`, "contents[0].parts[0].thoughtSignature", "malformed"},
		{"thought signature that is a malformed wrapped envelope", `{"contents":[{"role":"model","parts":[{"text":"a","thought_signature":"` + base64.StdEncoding.EncodeToString([]byte("llmbridge.v1.AAAA")) + `"}]}]}`, "contents[0].parts[0].thought_signature", "malformed"},
		{"thought wrong type", `{"contents":[{"parts":[{"text":"q","thought":"no"}]}]}`, "contents[0].parts[0].thought", "expected boolean"},
		{"thought signature of the wrong type", `{"contents":[{"parts":[{"text":"q","thoughtSignature":1}]}]}`, "contents[0].parts[0].thoughtSignature", "expected string"},
		{"function call in a user turn", `{"contents":[{"parts":[{"functionCall":{"name":"f","args":{}}}]}]}`, "contents[0].parts[0].functionCall", `must be in a "model" turn`},
		{"function response orphan", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "contents[0].parts[0].functionResponse", `answers no unanswered functionCall named "f"`},
		{"function response in a model turn", `{"contents":[` + callTurn + `,{"role":"model","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "contents[1].parts[0].functionResponse", `must be in a "user" turn`},
		{"function response unknown id", `{"contents":[` + callTurn + `,{"parts":[{"functionResponse":{"id":"x","name":"f","response":{}}}]}]}`, "contents[1].parts[0].functionResponse.id", `no unanswered functionCall with id "x"`},
		{"function response wrong name", `{"contents":[{"role":"model","parts":[{"functionCall":{"id":"a","name":"f"}}]},{"parts":[{"functionResponse":{"id":"a","name":"g","response":{}}}]}]}`, "contents[1].parts[0].functionResponse.name", `calls "f"`},
		{"function response twice", `{"contents":[` + callTurn + `,{"parts":[{"functionResponse":{"name":"f","response":{}}},{"functionResponse":{"name":"f","response":{}}}]}]}`, "contents[1].parts[1].functionResponse", "answers no unanswered"},
		{"function response not after the call", `{"contents":[` + callTurn + `,{"parts":[{"text":"q"}]},{"role":"model","parts":[{"text":"a"}]},{"parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "contents[3].parts[0].functionResponse", "answers no unanswered"},
		{"function call not object", `{"contents":[{"role":"model","parts":[{"functionCall":"f"}]}]}`, "contents[0].parts[0].functionCall", "expected object"},
		{"function call without name", `{"contents":[{"role":"model","parts":[{"functionCall":{"args":{}}}]}]}`, "contents[0].parts[0].functionCall.name", "is required"},
		{"function call name number", `{"contents":[{"role":"model","parts":[{"function_call":{"name":1}}]}]}`, "contents[0].parts[0].function_call.name", "expected string"},
		{"function call id number", `{"contents":[{"role":"model","parts":[{"functionCall":{"id":1,"name":"f"}}]}]}`, "contents[0].parts[0].functionCall.id", "expected string"},
		{"function call args string", `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":"{}"}}]}]}`, "contents[0].parts[0].functionCall.args", "expected object"},
		{"function call partial args", `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","partialArgs":[]}}]}]}`, "contents[0].parts[0].functionCall.partialArgs", "partial arguments"},
		{"function call will continue", `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","willContinue":true}}]}]}`, "contents[0].parts[0].functionCall.willContinue", "partial function calls"},
		{"function call unknown field", `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","x":1}}]}]}`, "contents[0].parts[0].functionCall.x", "unknown field"},
		{"function call and text", `{"contents":[{"role":"model","parts":[{"text":"a","functionCall":{"name":"f"}}]}]}`, "contents[0].parts[0].functionCall", "also has text"},
		{"function response not object", `{"contents":[{"parts":[{"functionResponse":[]}]}]}`, "contents[0].parts[0].functionResponse", "expected object"},
		{"function response without name", `{"contents":[{"parts":[{"functionResponse":{"response":{}}}]}]}`, "contents[0].parts[0].functionResponse.name", "is required"},
		{"function response without response", `{"contents":[{"parts":[{"function_response":{"name":"f","response":null}}]}]}`, "contents[0].parts[0].function_response.response", "is required"},
		{"function response response string", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":"ok"}}]}]}`, "contents[0].parts[0].functionResponse.response", "expected object"},
		{"function response id number", `{"contents":[{"parts":[{"functionResponse":{"id":2,"name":"f","response":{}}}]}]}`, "contents[0].parts[0].functionResponse.id", "expected string"},
		{"function response parts", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":{},"parts":[]}}]}]}`, "contents[0].parts[0].functionResponse.parts", "multimodal function responses"},
		{"function response will continue", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":{},"willContinue":true}}]}]}`, "contents[0].parts[0].functionResponse.willContinue", "non-blocking"},
		{"function response scheduling", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":{},"scheduling":"INTERRUPT"}}]}]}`, "contents[0].parts[0].functionResponse.scheduling", "non-blocking"},
		{"function response unknown field", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":{},"x":1}}]}]}`, "contents[0].parts[0].functionResponse.x", "unknown field"},
		{"system function call", `{` + ok + `,"systemInstruction":{"parts":[{"functionCall":{"name":"f"}}]}}`, "systemInstruction.parts[0]", "text only"},
		{"inline data video", `{"contents":[{"parts":[{"text":"q"},{"inlineData":{"mimeType":"video/mp4","data":"AA=="}}]}]}`, "contents[0].parts[1].inlineData.mimeType", `media type "video/mp4" is not supported`},
		{"inline data without type", `{"contents":[{"parts":[{"inline_data":{"data":"AA=="}}]}]}`, "contents[0].parts[0].inline_data.mimeType", "is required"},
		{"inline data without data", `{"contents":[{"parts":[{"inlineData":{"mime_type":"image/png","displayName":"a"}}]}]}`, "contents[0].parts[0].inlineData.data", "is required"},
		{"inline data not object", `{"contents":[{"parts":[{"inlineData":"AA=="}]}]}`, "contents[0].parts[0].inlineData", "expected object"},
		{"inline data number", `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":1}}]}]}`, "contents[0].parts[0].inlineData.data", "expected string"},
		{"inline data fileUri", `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","fileUri":"gs://b/a"}}]}]}`, "contents[0].parts[0].inlineData.fileUri", "unknown field"},
		{"inline data and text", `{"contents":[{"parts":[{"text":"q","inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`, "contents[0].parts[0].inlineData", "also has text"},
		{"file data without type", `{"contents":[{"parts":[{"fileData":{"fileUri":"gs://x"}}]}]}`, "contents[0].parts[0].fileData.mimeType", "is required"},
		{"file data audio", `{"contents":[{"parts":[{"file_data":{"mimeType":"audio/wav","fileUri":"gs://x"}}]}]}`, "contents[0].parts[0].file_data.mimeType", `media type "audio/wav" is not supported`},
		{"file data without uri", `{"contents":[{"parts":[{"fileData":{"mimeType":"image/png"}}]}]}`, "contents[0].parts[0].fileData.fileUri", "is required"},
		{"file data Files API", `{"contents":[{"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc"}}]}]}`, "contents[0].parts[0].fileData.fileUri", "server-side state"},
		{"file data other scheme", `{"contents":[{"parts":[{"fileData":{"mimeType":"image/png","file_uri":"ftp://x/a.png"}}]}]}`, "contents[0].parts[0].fileData.fileUri", "http(s) or gs://"},
		{"executable code", `{"contents":[{"parts":[{"executableCode":{}}]}]}`, "contents[0].parts[0]", `"executableCode"`},
		{"code execution result", `{"contents":[{"parts":[{"codeExecutionResult":{}}]}]}`, "contents[0].parts[0]", `"codeExecutionResult"`},
		{"video metadata", `{"contents":[{"parts":[{"text":"q","videoMetadata":{}}]}]}`, "contents[0].parts[0]", `"videoMetadata"`},
		{"part unknown field", `{"contents":[{"parts":[{"text":"q","lang":"en"}]}]}`, "contents[0].parts[0].lang", "unknown field"},
		{"system not object", `{` + ok + `,"systemInstruction":"be nice"}`, "systemInstruction", "expected object, got string"},
		{"system role wrong type", `{` + ok + `,"systemInstruction":{"role":1,"parts":[]}}`, "systemInstruction.role", "expected string"},
		{"system parts wrong type", `{` + ok + `,"systemInstruction":{"parts":{}}}`, "systemInstruction.parts", "expected array"},
		{"system image", `{` + ok + `,"system_instruction":{"parts":[{"text":"a"},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}}`, "system_instruction.parts[1]", "text only"},
		{"system unknown field", `{` + ok + `,"systemInstruction":{"parts":[],"name":"x"}}`, "systemInstruction.name", "unknown field"},
		{"generationConfig not object", `{` + ok + `,"generationConfig":[]}`, "generationConfig", "expected object, got array"},
		{"maxOutputTokens string", `{` + ok + `,"generationConfig":{"maxOutputTokens":"10"}}`, "generationConfig.maxOutputTokens", "expected integer"},
		{"maxOutputTokens fraction", `{` + ok + `,"generation_config":{"max_output_tokens":1.5}}`, "generation_config.max_output_tokens", "expected integer"},
		{"temperature string", `{` + ok + `,"generationConfig":{"temperature":"hot"}}`, "generationConfig.temperature", "expected number"},
		{"topP string", `{` + ok + `,"generationConfig":{"topP":"x"}}`, "generationConfig.topP", "expected number"},
		{"topK fraction", `{` + ok + `,"generationConfig":{"topK":1.5}}`, "generationConfig.topK", "expected integer"},
		{"seed string", `{` + ok + `,"generationConfig":{"seed":"1"}}`, "generationConfig.seed", "expected integer"},
		{"presencePenalty bool", `{` + ok + `,"generationConfig":{"presencePenalty":true}}`, "generationConfig.presencePenalty", "expected number"},
		{"frequencyPenalty string", `{` + ok + `,"generationConfig":{"frequency_penalty":"1"}}`, "generationConfig.frequency_penalty", "expected number"},
		{"stopSequences string", `{` + ok + `,"generationConfig":{"stopSequences":"END"}}`, "generationConfig.stopSequences", "expected array of strings"},
		{"stopSequences element", `{` + ok + `,"generationConfig":{"stopSequences":["a",1]}}`, "generationConfig.stopSequences[1]", "expected string"},
		{"candidateCount 2", `{` + ok + `,"generationConfig":{"candidateCount":2}}`, "generationConfig.candidateCount", "only one candidate"},
		{"candidateCount string", `{` + ok + `,"generationConfig":{"candidateCount":"1"}}`, "generationConfig.candidateCount", "expected integer"},
		{"responseMimeType enum", `{` + ok + `,"generationConfig":{"responseMimeType":"text/x.enum"}}`, "generationConfig.responseMimeType", `only "text/plain" and "application/json"`},
		{"responseMimeType wrong type", `{` + ok + `,"generationConfig":{"responseMimeType":1}}`, "generationConfig.responseMimeType", "expected string"},
		{"responseModalities image", `{` + ok + `,"generationConfig":{"responseModalities":["TEXT","IMAGE"]}}`, "generationConfig.responseModalities[1]", "only TEXT"},
		{"responseModalities string", `{` + ok + `,"generationConfig":{"responseModalities":"TEXT"}}`, "generationConfig.responseModalities", "expected array of strings"},
		{"responseModalities element", `{` + ok + `,"generationConfig":{"response_modalities":[1]}}`, "generationConfig.response_modalities[0]", "expected string"},
		{"responseSchema without JSON", `{` + ok + `,"generationConfig":{"responseSchema":{"type":"OBJECT"}}}`, "generationConfig.responseSchema", `requires responseMimeType "application/json"`},
		{"responseJsonSchema without JSON", `{` + ok + `,"generationConfig":{"responseMimeType":"text/plain","responseJsonSchema":{"type":"object"}}}`, "generationConfig.responseJsonSchema", `requires responseMimeType "application/json"`},
		{"both schemas", `{` + ok + `,"generationConfig":{"responseMimeType":"application/json","response_json_schema":{},"responseSchema":{}}}`, "generationConfig.response_json_schema", "must not both be set"},
		{"responseJsonSchema not an object", `{` + ok + `,"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":[]}}`, "generationConfig.responseJsonSchema", "expected object"},
		{"responseSchema not an object", `{` + ok + `,"generationConfig":{"responseMimeType":"application/json","responseSchema":"x"}}`, "generationConfig.responseSchema", "expected object"},
		{"responseSchema unconvertible", `{` + ok + `,"generationConfig":{"responseMimeType":"application/json","responseSchema":{"ref":"#/x"}}}`, "generationConfig.responseSchema.ref", "no JSON Schema conversion"},
		{"thinkingConfig not an object", `{` + ok + `,"generationConfig":{"thinkingConfig":1}}`, "generationConfig.thinkingConfig", "expected object"},
		{"thinkingBudget string", `{` + ok + `,"generationConfig":{"thinkingConfig":{"thinkingBudget":"1"}}}`, "generationConfig.thinkingConfig.thinkingBudget", "expected integer"},
		{"thinkingBudget below -1", `{` + ok + `,"generation_config":{"thinking_config":{"thinking_budget":-2}}}`, "generation_config.thinking_config.thinking_budget", "must be -1"},
		{"includeThoughts string", `{` + ok + `,"generationConfig":{"thinkingConfig":{"includeThoughts":"yes"}}}`, "generationConfig.thinkingConfig.includeThoughts", "expected boolean"},
		{"thinkingLevel unknown", `{` + ok + `,"generationConfig":{"thinkingConfig":{"thinkingLevel":"extreme"}}}`, "generationConfig.thinkingConfig.thinkingLevel", `"minimal", "low", "medium" or "high"`},
		{"thinkingLevel number", `{` + ok + `,"generationConfig":{"thinkingConfig":{"thinking_level":2}}}`, "generationConfig.thinkingConfig.thinking_level", "expected string"},
		{"thinkingLevel and thinkingBudget", `{` + ok + `,"generationConfig":{"thinkingConfig":{"thinkingLevel":"low","thinkingBudget":10}}}`, "generationConfig.thinkingConfig.thinkingBudget", "must not both be set"},
		{"thinkingConfig unknown", `{` + ok + `,"generationConfig":{"thinkingConfig":{"effort":"low"}}}`, "generationConfig.thinkingConfig.effort", "unknown field"},
		{"speechConfig", `{` + ok + `,"generationConfig":{"speechConfig":{}}}`, "generationConfig.speechConfig", "audio"},
		{"imageConfig", `{` + ok + `,"generationConfig":{"imageConfig":{}}}`, "generationConfig.imageConfig", "image output"},
		{"responseLogprobs true", `{` + ok + `,"generationConfig":{"responseLogprobs":true}}`, "generationConfig.responseLogprobs", "log probabilities"},
		{"responseLogprobs string", `{` + ok + `,"generationConfig":{"responseLogprobs":"yes"}}`, "generationConfig.responseLogprobs", "expected boolean"},
		{"logprobs 3", `{` + ok + `,"generationConfig":{"logprobs":3}}`, "generationConfig.logprobs", "log probabilities"},
		{"logprobs string", `{` + ok + `,"generationConfig":{"logprobs":"3"}}`, "generationConfig.logprobs", "expected integer"},
		{"audioTimestamp true", `{` + ok + `,"generationConfig":{"audioTimestamp":true}}`, "generationConfig.audioTimestamp", "audio"},
		{"mediaResolution number", `{` + ok + `,"generationConfig":{"mediaResolution":1}}`, "generationConfig.mediaResolution", "expected string"},
		{"generationConfig unknown", `{` + ok + `,"generationConfig":{"routingConfig":{}}}`, "generationConfig.routingConfig", "unknown field"},
		{"safetySettings object", `{` + ok + `,"safetySettings":{}}`, "safetySettings", "expected array, got object"},
		{"labels array", `{` + ok + `,"labels":[]}`, "labels", "expected object, got array"},
		{"model number", `{` + ok + `,"model":1}`, "model", "expected string"},
		{"serviceTier number", `{` + ok + `,"service_tier":1}`, "service_tier", "expected string"},
		{"modelArmorConfig string", `{` + ok + `,"modelArmorConfig":"t"}`, "modelArmorConfig", "expected object"},
		{"cachedContent", `{` + ok + `,"cachedContent":"cachedContents/abc"}`, "cachedContent", "server-side state"},
		{"cached_content", `{` + ok + `,"cached_content":"cachedContents/abc"}`, "cached_content", "server-side state"},
		{"tools object", `{` + ok + `,"tools":{}}`, "tools", "expected array"},
		{"tool not object", `{` + ok + `,"tools":[1]}`, "tools[0]", "expected object"},
		{"tool unknown field", `{` + ok + `,"tools":[{"functions":[]}]}`, "tools[0].functions", "unknown field"},
		{"code execution", `{` + ok + `,"tools":[{"codeExecution":{}}]}`, "tools[0].codeExecution", `hosted tool "codeExecution" cannot be translated`},
		{"google search time range", `{` + ok + `,"tools":[{"googleSearch":{"timeRangeFilter":{}}}]}`, "tools[0].googleSearch.timeRangeFilter", `time range`},
		{"google search unknown", `{` + ok + `,"tools":[{"googleSearch":{"x":1}}]}`, "tools[0].googleSearch.x", `unknown`},
		{"google search type", `{` + ok + `,"tools":[{"googleSearch":[]}]}`, "tools[0].googleSearch", `object`},
		{"code execution", `{` + ok + `,"tools":[{"code_execution":{}}]}`, "tools[0].code_execution", `hosted tool "code_execution"`},
		{"url context", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f"}]},{"urlContext":{}}]}`, "tools[1].urlContext", `hosted tool "urlContext"`},
		{"declarations object", `{` + ok + `,"tools":[{"functionDeclarations":{}}]}`, "tools[0].functionDeclarations", "expected array"},
		{"declaration not object", `{` + ok + `,"tools":[{"function_declarations":["f"]}]}`, "tools[0].function_declarations[0]", "expected object"},
		{"declaration without name", `{` + ok + `,"tools":[{"functionDeclarations":[{"description":"d"}]}]}`, "tools[0].functionDeclarations[0].name", "is required"},
		{"declaration name number", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":1}]}]}`, "tools[0].functionDeclarations[0].name", "expected string"},
		{"declaration description number", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","description":1}]}]}`, "tools[0].functionDeclarations[0].description", "expected string"},
		{"declaration unknown field", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","strict":true}]}]}`, "tools[0].functionDeclarations[0].strict", "unknown field"},
		{"declaration response schema", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","response":{"type":"STRING"}}]}]}`, "tools[0].functionDeclarations[0].response", "return value"},
		{"declaration response json schema", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","responseJsonSchema":{}}]}]}`, "tools[0].functionDeclarations[0].responseJsonSchema", "return value"},
		{"declaration non-blocking", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","behavior":"NON_BLOCKING"}]}]}`, "tools[0].functionDeclarations[0].behavior", "non-blocking"},
		{"both schemas", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{},"parametersJsonSchema":{}}]}]}`, "tools[0].functionDeclarations[0].parametersJsonSchema", "must not both be set"},
		{"json schema not object", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters_json_schema":true}]}]}`, "tools[0].functionDeclarations[0].parameters_json_schema", "expected object"},
		{"parameters not object", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":[]}]}]}`, "tools[0].functionDeclarations[0].parameters", "expected object"},
		{"schema type number", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":1}}]}]}`, "tools[0].functionDeclarations[0].parameters.type", "expected string"},
		{"schema type unknown", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"MAP"}}]}]}`, "tools[0].functionDeclarations[0].parameters.type", `unknown type "MAP"`},
		{"schema nullable string", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"nullable":"yes"}}]}]}`, "tools[0].functionDeclarations[0].parameters.nullable", "expected boolean"},
		{"schema description number", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"description":1}}]}]}`, "tools[0].functionDeclarations[0].parameters.description", "expected string"},
		{"schema required string", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"required":"a"}}]}]}`, "tools[0].functionDeclarations[0].parameters.required", "expected array of strings"},
		{"schema minimum string", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"minimum":"1"}}]}]}`, "tools[0].functionDeclarations[0].parameters.minimum", "expected number"},
		{"schema minItems negative", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"minItems":-1}}]}]}`, "tools[0].functionDeclarations[0].parameters.minItems", "expected integer"},
		{"schema max_length text", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"max_length":"ten"}}]}]}`, "tools[0].functionDeclarations[0].parameters.max_length", "expected integer"},
		{"schema properties array", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"properties":[]}}]}]}`, "tools[0].functionDeclarations[0].parameters.properties", "expected object"},
		{"schema property not object", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"properties":{"a":{"type":"STRING"},"b":1}}}]}]}`, "tools[0].functionDeclarations[0].parameters.properties.b", "expected object"},
		{"schema nested error", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"properties":{"a":{"items":{"type":"X"}}}}}]}]}`, "tools[0].functionDeclarations[0].parameters.properties.a.items.type", "unknown type"},
		{"schema anyOf object", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"anyOf":{}}}]}]}`, "tools[0].functionDeclarations[0].parameters.anyOf", "expected array"},
		{"schema anyOf element", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"any_of":[{},2]}}]}]}`, "tools[0].functionDeclarations[0].parameters.any_of[1]", "expected object"},
		{"schema additionalProperties number", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"additionalProperties":1}}]}]}`, "tools[0].functionDeclarations[0].parameters.additionalProperties", "expected object"},
		{"schema ref", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f","parameters":{"ref":"#/defs/a"}}]}]}`, "tools[0].functionDeclarations[0].parameters.ref", "use parametersJsonSchema"},
		{"toolConfig string", `{` + ok + `,"toolConfig":"AUTO"}`, "toolConfig", "expected object"},
		{"toolConfig unknown", `{` + ok + `,"tool_config":{"mode":"AUTO"}}`, "tool_config.mode", "unknown field"},
		{"retrievalConfig", `{` + ok + `,"toolConfig":{"retrievalConfig":{}}}`, "toolConfig.retrievalConfig", "hosted tools"},
		{"functionCallingConfig array", `{` + ok + `,"toolConfig":{"functionCallingConfig":[]}}`, "toolConfig.functionCallingConfig", "expected object"},
		{"mode number", `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":1}}}`, "toolConfig.functionCallingConfig.mode", "expected string"},
		{"mode unknown", `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}}`, "toolConfig.functionCallingConfig.mode", `must be "AUTO"`},
		{"mode validated", `{` + ok + `,"toolConfig":{"function_calling_config":{"mode":"VALIDATED"}}}`, "toolConfig.function_calling_config.mode", "VALIDATED"},
		{"allowed names with auto", `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO","allowedFunctionNames":["f"]}}}`, "toolConfig.functionCallingConfig.allowedFunctionNames", "only allowed with mode ANY"},
		{"allowed names not strings", `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowed_function_names":[1]}}}`, "toolConfig.functionCallingConfig.allowed_function_names[0]", "expected string"},
		{"allowed names subset", `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f"},{"name":"g"},{"name":"h"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f","g"]}}}`, "toolConfig.functionCallingConfig.allowedFunctionNames", "subset"},
		{"stream arguments string", `{` + ok + `,"toolConfig":{"functionCallingConfig":{"streamFunctionCallArguments":"yes"}}}`, "toolConfig.functionCallingConfig.streamFunctionCallArguments", "expected boolean"},
		{"functionCallingConfig unknown", `{` + ok + `,"toolConfig":{"functionCallingConfig":{"allowed":[]}}}`, "toolConfig.functionCallingConfig.allowed", "unknown field"},
		{"stream is not a body field", `{` + ok + `,"stream":true}`, "stream", "unknown field"},
		{"unknown top-level field", `{` + ok + `,"temperature":0.5}`, "temperature", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode(t, codec.Vertex, tt.body)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Status != 400 || err.Kind != mapping.ErrInvalidRequest {
				t.Errorf("status %d kind %v, want 400 invalid request", err.Status, err.Kind)
			}
			if err.Param != tt.param {
				t.Errorf("param %q, want %q", err.Param, tt.param)
			}
			if !strings.Contains(err.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", err.Message, tt.msg)
			}
		})
	}
}

// TestGeminiDecodeRecordedRequests decodes the request bodies real clients
// sent: text-only ones decode; the others are rejected at the first field
// that is out of scope.
func TestGeminiDecodeRecordedRequests(t *testing.T) {
	tests := []struct {
		file    string
		param   string // "" when the request decodes
		dropped []string
	}{
		{file: "gemini/error-404-model-not-found.json"},
		{file: "gemini/gemini-2.5-flash-text.json"},
		{file: "gemini/gemini-2.5-flash-text-stream.json"},
		{file: "gemini/stop-sequence.json"},
		{file: "gemini/safety-block.json", dropped: []string{"safetySettings"}},
		{file: "vertex/gemini-2.5-flash-text.json"},
		{file: "vertex/gemini-2.5-flash-text-stream.json"},
		{file: "vertex/model-armor-response-block.json", dropped: []string{"modelArmorConfig"}},
		{file: "gemini/gemini-2.5-flash-implicit-cache-video.json", param: "contents[0].parts[1].fileData.mimeType"},
		{file: "gemini/gemini-2.5-pro-image.json"},
		{file: "vertex/image-url.json"},
		{file: "gemini/gemini-2.5-flash-tool-call.json"},
		{file: "gemini/gemini-2.5-flash-parallel-tools-stream.json"},
		{file: "vertex/gemini-2.5-flash-parallel-tools.json"},
		{file: "vertex/gemini-2.5-flash-tool-call-stream.json"},
		{file: "gemini/gemini-3-pro-tool-call-signature-stream.json"},
		// Tool follow-ups send the call's thoughtSignature back: it is
		// reasoning now (see TestGeminiRecordedReasoningRequests).
		{file: "gemini/gemini-2.5-flash-tool-followup.json"},
		{file: "gemini/gemini-2.5-pro-thinking-followup-stream.json"},
		{file: "gemini/gemini-3-pro-signature-replay-followup-stream.json"},
		{file: "vertex/gemini-2.5-flash-tool-followup-stream.json"},
		{file: "gemini/gemini-2.5-pro-thinking-tool-call-stream.json"},
		{file: "gemini/max-tokens.json"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rec := codectest.ReadRecording(t, tt.file)
			p := codec.Protocol(rec.Get("protocol").Str)
			req, err := decode(t, p, rec.Get("request.body").Raw)
			switch {
			case tt.param == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.param != "" && (err == nil || err.Param != tt.param):
				t.Fatalf("error %v, want one about %s", err, tt.param)
			case tt.param == "" && !codectest.EqualDecoded(req.Dropped, tt.dropped):
				t.Errorf("Dropped %q, want %q", req.Dropped, tt.dropped)
			}
		})
	}
}

func TestGeminiDecodeRecordedRequestContent(t *testing.T) {
	rec := codectest.ReadRecording(t, "gemini/gemini-2.5-flash-text.json")
	req, err := decode(t, codec.Gemini, rec.Get("request.body").Raw)
	if err != nil {
		t.Fatal(err)
	}
	want := codec.Request{
		System:     []codec.Part{{Type: codec.PartText, Text: "You are a helpful assistant"}},
		SystemRole: codec.RoleSystem,
		Messages:   []codec.Message{geminiText(codec.RoleUser, "Say hi in Portuguese")},
		MaxTokens:  codec.OptInt{Value: 4000, Set: true},
	}
	if !codectest.EqualDecoded(req, want) {
		t.Errorf("got %+v\nwant %+v", req, want)
	}
}
