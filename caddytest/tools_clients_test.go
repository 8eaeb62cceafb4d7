package caddytest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"
)

// This file gives the client adapters a tool-use and image side: each SDK
// sends function tools (typed parameters), a history with tool calls and
// results, and user images, and reports the tool calls it got back,
// streaming and not.

// toolDef is one function tool.
type toolDef struct {
	Name, Description string
	Schema            map[string]any
}

// toolCall is one tool call as a client got it (or sends it back): Args is
// the JSON text of its arguments.
type toolCall struct {
	ID, Name, Args string
}

// toolMsg is one message of a tool conversation.
type toolMsg struct {
	// Role is "user", "assistant" (tool calls) or "tool" (one result).
	Role string
	Text string
	// Image, with ImageMIME, is sent after Text in a user message.
	Image     []byte
	ImageMIME string
	Calls     []toolCall
	// CallID and Name identify the call a "tool" message answers.
	CallID, Name string
}

// toolConv is what the tool tests send.
type toolConv struct {
	Model     string
	MaxTokens int64
	Tools     []toolDef
	Msgs      []toolMsg
}

// toolOutcome is what a client SDK made of a tool-capable answer.
type toolOutcome struct {
	Text  string
	Stop  string // normalised as result.Stop
	Calls []toolCall
	// ArgFragments counts, per call index, the non-empty argument fragments
	// streamed (0 when not streaming).
	ArgFragments map[int]int
	// StreamProblems are ways the stream broke the rule "id, name and type
	// once, then only non-empty argument fragments".
	StreamProblems []string
	Terminal       bool
}

// toolClient is a client SDK driving tool conversations.
type toolClient interface {
	protocol() proto
	toolTurn(ctx context.Context, base string, conv toolConv, stream bool) (toolOutcome, error)
}

func toolClients() map[proto]toolClient {
	return map[proto]toolClient{
		openaiChat:         chatClient{},
		openaiResponses:    responsesClient{},
		anthropicMsgs:      anthropicClient{},
		vertexAnthropic:    anthropicClient{vertex: true},
		bedrockConverse:    converseClient{},
		bedrockAnthropic:   anthropicClient{bedrock: true},
		gemini:             genaiClient{backend: genai.BackendGeminiAPI},
		vertex:             genaiClient{backend: genai.BackendVertexAI},
		geminiInteractions: interactionsClient{},
		vertexInteractions: interactionsClient{vertex: true},
	}
}

func dataURL(mime string, b []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// --- openai-chat ---

func (chatClient) toolTurn(ctx context.Context, base string, conv toolConv, stream bool) (toolOutcome, error) {
	c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0),
		openaiopt.WithHTTPClient(streamOptions{}.httpClient()))
	var msgs []openai.ChatCompletionMessageParamUnion
	for _, m := range conv.Msgs {
		switch m.Role {
		case "user":
			if m.Image != nil {
				msgs = append(msgs, openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
					openai.TextContentPart(m.Text),
					openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(m.ImageMIME, m.Image)}),
				}))
			} else {
				msgs = append(msgs, openai.UserMessage(m.Text))
			}
		case "assistant":
			var tcs []openai.ChatCompletionMessageToolCallUnionParam
			for _, tc := range m.Calls {
				tcs = append(tcs, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Args}}})
			}
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{ToolCalls: tcs}})
		case "tool":
			msgs = append(msgs, openai.ToolMessage(m.Text, m.CallID))
		}
	}
	var tools []openai.ChatCompletionToolUnionParam
	for _, d := range conv.Tools {
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: d.Name, Description: openai.String(d.Description), Parameters: shared.FunctionParameters(d.Schema)}))
	}
	params := openai.ChatCompletionNewParams{Model: conv.Model, Messages: msgs, Tools: tools, MaxCompletionTokens: openai.Int(conv.MaxTokens)}
	var out toolOutcome
	if !stream {
		resp, err := c.Chat.Completions.New(ctx, params)
		if err != nil {
			return out, err
		}
		if len(resp.Choices) > 0 {
			ch := resp.Choices[0]
			out.Text = ch.Message.Content
			out.Stop = normaliseStop(openaiChat, ch.FinishReason)
			for _, tc := range ch.Message.ToolCalls {
				out.Calls = append(out.Calls, toolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			}
		}
		out.Terminal = true
		return out, nil
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	st := c.Chat.Completions.NewStreaming(ctx, params)
	defer st.Close()
	out.ArgFragments = map[int]int{}
	var text strings.Builder
	type acc struct {
		id, name string
		args     strings.Builder
	}
	var calls []*acc
	for st.Next() {
		chunk := st.Current()
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			text.WriteString(ch.Delta.Content)
			for _, d := range ch.Delta.ToolCalls {
				i := int(d.Index)
				if i < 0 || i > len(calls) {
					out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("tool call delta index %d skips ahead (%d calls so far)", i, len(calls)))
					continue
				}
				if i == len(calls) {
					calls = append(calls, &acc{id: d.ID, name: d.Function.Name})
					if d.ID == "" || d.Function.Name == "" {
						out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("tool call %d starts without its id or name (%q, %q)", i, d.ID, d.Function.Name))
					}
				} else {
					if d.ID != "" || d.Function.Name != "" || d.Type != "" {
						out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("tool call %d repeats id/name/type in a later delta (%q, %q, %q)", i, d.ID, d.Function.Name, d.Type))
					}
					if d.Function.Arguments == "" {
						out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("tool call %d has an empty argument delta", i))
					}
				}
				if d.Function.Arguments != "" {
					out.ArgFragments[i]++
				}
				calls[i].args.WriteString(d.Function.Arguments)
			}
			if ch.FinishReason != "" {
				out.Stop = normaliseStop(openaiChat, ch.FinishReason)
				out.Terminal = true
			}
		}
	}
	out.Text = text.String()
	for _, a := range calls {
		out.Calls = append(out.Calls, toolCall{ID: a.id, Name: a.name, Args: a.args.String()})
	}
	return out, st.Err()
}

// --- openai-responses ---

func (responsesClient) toolTurn(ctx context.Context, base string, conv toolConv, stream bool) (toolOutcome, error) {
	c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0),
		openaiopt.WithHTTPClient(streamOptions{}.httpClient()))
	var input responses.ResponseInputParam
	for _, m := range conv.Msgs {
		switch m.Role {
		case "user":
			if m.Image != nil {
				input = append(input, responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
					{OfInputText: &responses.ResponseInputTextParam{Text: m.Text}},
					{OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String(dataURL(m.ImageMIME, m.Image)), Detail: responses.ResponseInputImageDetailAuto}},
				}, responses.EasyInputMessageRoleUser))
			} else {
				input = append(input, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleUser))
			}
		case "assistant":
			for _, tc := range m.Calls {
				input = append(input, responses.ResponseInputItemParamOfFunctionCall(tc.Args, tc.ID, tc.Name))
			}
		case "tool":
			item := responses.ResponseInputItemParamOfFunctionCallOutput(m.Text)
			item.OfFunctionCallOutput.CallID = openai.String(m.CallID)
			input = append(input, item)
		}
	}
	var tools []responses.ToolUnionParam
	for _, d := range conv.Tools {
		tools = append(tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name: d.Name, Description: openai.String(d.Description), Parameters: d.Schema, Strict: openai.Bool(false)}})
	}
	params := responses.ResponseNewParams{Model: conv.Model, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools: tools, MaxOutputTokens: openai.Int(conv.MaxTokens)}
	var out toolOutcome
	final := func(resp *responses.Response) {
		r := responsesResult(resp)
		out.Stop = r.Stop
		var calls []toolCall
		for _, it := range resp.Output {
			if it.Type == "function_call" {
				fc := it.AsFunctionCall()
				calls = append(calls, toolCall{ID: fc.CallID, Name: fc.Name, Args: fc.Arguments})
			}
		}
		if out.Stop == "end" && len(calls) > 0 {
			out.Stop = "tool_use"
		}
		if !stream {
			out.Text, out.Calls = r.Text, calls
		} else if len(calls) != len(out.Calls) {
			out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("the final response lists %d function calls, the stream %d", len(calls), len(out.Calls)))
		} else {
			for i := range calls {
				if calls[i] != out.Calls[i] {
					out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("the final response's call %d %+v differs from the streamed one %+v", i, calls[i], out.Calls[i]))
				}
			}
		}
		out.Terminal = true
	}
	if !stream {
		resp, err := c.Responses.New(ctx, params)
		if err != nil {
			return out, err
		}
		final(resp)
		return out, nil
	}
	st := c.Responses.NewStreaming(ctx, params)
	defer st.Close()
	out.ArgFragments = map[int]int{}
	var text strings.Builder
	type acc struct {
		itemID string
		call   toolCall
		args   strings.Builder
		done   string
		isDone bool
	}
	var calls []*acc
	byItem := map[string]int{}
	var failure *responsesStreamError
	for st.Next() {
		ev := st.Current()
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				fc := ev.Item.AsFunctionCall()
				byItem[fc.ID] = len(calls)
				calls = append(calls, &acc{itemID: fc.ID, call: toolCall{ID: fc.CallID, Name: fc.Name}})
				if fc.CallID == "" || fc.Name == "" {
					out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("function_call item %q added without call_id or name", fc.ID))
				}
			}
		case "response.function_call_arguments.delta":
			i, ok := byItem[ev.ItemID]
			if !ok {
				out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("arguments delta for unknown item %q", ev.ItemID))
				continue
			}
			if ev.Delta == "" {
				out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("empty arguments delta for call %d", i))
			}
			out.ArgFragments[i]++
			calls[i].args.WriteString(ev.Delta)
		case "response.function_call_arguments.done":
			if i, ok := byItem[ev.ItemID]; ok {
				calls[i].done, calls[i].isDone = ev.Arguments, true
			} else {
				out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("arguments done for unknown item %q", ev.ItemID))
			}
		case "response.completed", "response.incomplete":
			for _, a := range calls {
				args := a.args.String()
				if a.isDone {
					if args != "" && args != a.done {
						out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("call %q: deltas %q differ from arguments.done %q", a.call.Name, args, a.done))
					}
					args = a.done
				}
				a.call.Args = args
				out.Calls = append(out.Calls, a.call)
			}
			resp := ev.Response
			final(&resp)
		case "error":
			failure = &responsesStreamError{Event: ev.Type, Code: ev.Code, Message: ev.Message}
		case "response.failed":
			failure = &responsesStreamError{Event: ev.Type, Code: string(ev.Response.Error.Code), Message: ev.Response.Error.Message}
		}
	}
	out.Text = text.String()
	if err := st.Err(); err != nil {
		return out, err
	}
	if failure != nil {
		return out, failure
	}
	return out, nil
}

// --- anthropic-messages, vertex-anthropic ---

func (a anthropicClient) toolTurn(ctx context.Context, base string, conv toolConv, stream bool) (toolOutcome, error) {
	opts := append([]anthropicopt.RequestOption{anthropicopt.WithHTTPClient(streamOptions{}.httpClient())},
		a.options(ctx, base, conversation{Temperature: 0.5, TopP: 0.5}, clientProject)...)
	c := anthropic.NewClient(opts...)
	var msgs []anthropic.MessageParam
	var results []anthropic.ContentBlockParamUnion
	flush := func() {
		if len(results) > 0 {
			msgs = append(msgs, anthropic.NewUserMessage(results...))
			results = nil
		}
	}
	for _, m := range conv.Msgs {
		if m.Role != "tool" {
			flush()
		}
		switch m.Role {
		case "user":
			blocks := []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(m.Text)}
			if m.Image != nil {
				blocks = append(blocks, anthropic.NewImageBlockBase64(m.ImageMIME, base64.StdEncoding.EncodeToString(m.Image)))
			}
			msgs = append(msgs, anthropic.NewUserMessage(blocks...))
		case "assistant":
			var blocks []anthropic.ContentBlockParamUnion
			for _, tc := range m.Calls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, json.RawMessage(tc.Args), tc.Name))
			}
			msgs = append(msgs, anthropic.NewAssistantMessage(blocks...))
		case "tool":
			results = append(results, anthropic.NewToolResultBlock(m.CallID, m.Text, false))
		}
	}
	flush()
	var tools []anthropic.ToolUnionParam
	for _, d := range conv.Tools {
		extra := map[string]any{}
		for k, v := range d.Schema {
			if k != "type" && k != "properties" && k != "required" {
				extra[k] = v
			}
		}
		schema := anthropic.ToolInputSchemaParam{Properties: d.Schema["properties"], ExtraFields: extra}
		if req, ok := d.Schema["required"].([]string); ok {
			schema.Required = req
		}
		tools = append(tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: d.Name, Description: anthropic.String(d.Description), InputSchema: schema}})
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(conv.Model), MaxTokens: conv.MaxTokens, Messages: msgs, Tools: tools}
	var out toolOutcome
	collect := func(msg *anthropic.Message) {
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				out.Text += b.Text
			case "tool_use":
				out.Calls = append(out.Calls, toolCall{ID: b.ID, Name: b.Name, Args: string(b.Input)})
			}
		}
		out.Stop = normaliseStop(a.protocol(), string(msg.StopReason))
	}
	if !stream {
		msg, err := c.Messages.New(ctx, params)
		if err != nil {
			return out, err
		}
		collect(msg)
		out.Terminal = true
		return out, nil
	}
	st := c.Messages.NewStreaming(ctx, params)
	defer st.Close()
	out.ArgFragments = map[int]int{}
	var msg anthropic.Message
	var accErr error
	blockCall := map[int64]int{}
	for st.Next() {
		ev := st.Current()
		if err := msg.Accumulate(ev); err != nil && accErr == nil {
			accErr = err
		}
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				blockCall[ev.Index] = len(blockCall)
			}
		case "content_block_delta":
			if ev.Delta.Type == "input_json_delta" {
				i := blockCall[ev.Index]
				if ev.Delta.PartialJSON == "" {
					out.StreamProblems = append(out.StreamProblems, fmt.Sprintf("empty input_json_delta for call %d", i))
				} else {
					out.ArgFragments[i]++
				}
			}
		case "message_stop":
			out.Terminal = true
		}
	}
	collect(&msg)
	if msg.StopReason == "" {
		out.Stop = ""
	}
	if err := st.Err(); err != nil {
		return out, err
	}
	if accErr != nil {
		return out, fmt.Errorf("the SDK's accumulator rejected the stream: %w", accErr)
	}
	return out, nil
}

// --- gemini, vertex ---

func (g genaiClient) toolTurn(ctx context.Context, base string, conv toolConv, stream bool) (toolOutcome, error) {
	c, err := g.newClient(ctx, base, clientProject, sdkTransport)
	if err != nil {
		return toolOutcome{}, err
	}
	var contents []*genai.Content
	var results []*genai.Part
	flush := func() {
		if len(results) > 0 {
			contents = append(contents, genai.NewContentFromParts(results, genai.RoleUser))
			results = nil
		}
	}
	for _, m := range conv.Msgs {
		if m.Role != "tool" {
			flush()
		}
		switch m.Role {
		case "user":
			parts := []*genai.Part{genai.NewPartFromText(m.Text)}
			if m.Image != nil {
				parts = append(parts, genai.NewPartFromBytes(m.Image, m.ImageMIME))
			}
			contents = append(contents, genai.NewContentFromParts(parts, genai.RoleUser))
		case "assistant":
			var parts []*genai.Part
			for _, tc := range m.Calls {
				var args map[string]any
				if err := json.Unmarshal([]byte(tc.Args), &args); err != nil {
					return toolOutcome{}, fmt.Errorf("the call's arguments %q do not parse: %w", tc.Args, err)
				}
				p := genai.NewPartFromFunctionCall(tc.Name, args)
				p.FunctionCall.ID = tc.ID
				parts = append(parts, p)
			}
			contents = append(contents, genai.NewContentFromParts(parts, genai.RoleModel))
		case "tool":
			p := genai.NewPartFromFunctionResponse(m.Name, map[string]any{"output": m.Text})
			p.FunctionResponse.ID = m.CallID
			results = append(results, p)
		}
	}
	flush()
	var decls []*genai.FunctionDeclaration
	for _, d := range conv.Tools {
		decls = append(decls, &genai.FunctionDeclaration{Name: d.Name, Description: d.Description, ParametersJsonSchema: d.Schema})
	}
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: int32(conv.MaxTokens)}
	if len(decls) > 0 {
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	var out toolOutcome
	var finish string
	take := func(resp *genai.GenerateContentResponse) {
		if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
			return
		}
		cand := resp.Candidates[0]
		if cand.Content != nil {
			for _, p := range cand.Content.Parts {
				if p == nil || p.Thought {
					continue
				}
				out.Text += p.Text
				if fc := p.FunctionCall; fc != nil {
					// genai hands a call without args over as a nil map;
					// a Go caller reads that as no arguments.
					args := []byte("{}")
					if fc.Args != nil {
						args, _ = json.Marshal(fc.Args)
					}
					out.Calls = append(out.Calls, toolCall{ID: fc.ID, Name: fc.Name, Args: string(args)})
				}
			}
		}
		if cand.FinishReason != "" {
			finish = string(cand.FinishReason)
			out.Terminal = true
		}
	}
	if !stream {
		resp, err := c.Models.GenerateContent(ctx, conv.Model, contents, cfg)
		if err != nil {
			return out, err
		}
		take(resp)
	} else {
		out.ArgFragments = map[int]int{}
		for resp, err := range c.Models.GenerateContentStream(ctx, conv.Model, contents, cfg) {
			if err != nil {
				return out, err
			}
			take(resp)
		}
	}
	out.Stop = normaliseStop(g.protocol(), finish)
	if out.Stop == "end" && len(out.Calls) > 0 {
		out.Stop = "tool_use"
	}
	return out, nil
}
