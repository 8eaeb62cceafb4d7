package caddytest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	gi "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
)

// toolTurn sends a tool conversation with genai's Interactions client:
// user_input steps (text, then an image), function_call steps for the
// assistant's calls and function_result steps answering them by call_id,
// the tools as function tools, store false. A streamed turn's steps come
// from its events; a call's step arrives whole, so no argument fragments
// are counted.
func (c interactionsClient) toolTurn(ctx context.Context, base string, conv toolConv, stream bool) (toolOutcome, error) {
	client, err := c.newClient(ctx, base, "", sdkTransport)
	if err != nil {
		return toolOutcome{}, err
	}
	var input []gi.Step
	for _, m := range conv.Msgs {
		switch m.Role {
		case "user":
			content := []gi.Content{gi.NewContent(gi.TextContent{Text: m.Text})}
			if m.Image != nil {
				data, mime := base64.StdEncoding.EncodeToString(m.Image), gi.ImageContentMimeType(m.ImageMIME)
				content = append(content, gi.NewContent(gi.ImageContent{Data: &data, MimeType: &mime}))
			}
			input = append(input, gi.NewStep(gi.UserInputStep{Content: content}))
		case "assistant":
			for _, tc := range m.Calls {
				args := map[string]any{}
				if err := json.Unmarshal([]byte(tc.Args), &args); err != nil {
					return toolOutcome{}, fmt.Errorf("the call's arguments %q do not parse: %w", tc.Args, err)
				}
				input = append(input, gi.NewStep(gi.FunctionCallStep{ID: tc.ID, Name: tc.Name, Arguments: args}))
			}
		case "tool":
			name := m.Name
			input = append(input, gi.NewStep(gi.FunctionResultStep{CallID: m.CallID, Name: &name, Result: gi.NewFunctionResultStepResultUnion(m.Text)}))
		}
	}
	var tools []gi.Tool
	for _, d := range conv.Tools {
		name, desc := d.Name, d.Description
		tools = append(tools, gi.NewTool(gi.Function{Name: &name, Description: &desc, Parameters: d.Schema}))
	}
	store, maxTokens := false, int(conv.MaxTokens)
	body := gi.CreateModelInteraction{Model: gi.Model(conv.Model), Input: ptr(gi.NewInteractionsInput(input)), Tools: tools,
		Store: &store, GenerationConfig: &gi.GenerationConfig{MaxOutputTokens: &maxTokens}}
	if stream {
		body.Stream = &stream
	}
	res, err := client.Interactions.Create(ctx, operations.CreateInteractionRequest{Body: operations.NewCreateInteractionRequestBody(body)}, noRetries)
	if err != nil {
		return toolOutcome{}, err
	}
	var steps []gi.Step
	var status string
	if stream {
		if steps, status, err = foldInteractionsStream(res); err != nil {
			return toolOutcome{}, err
		}
	} else {
		if res.Interaction == nil {
			return toolOutcome{}, fmt.Errorf("no interaction in the answer")
		}
		steps, status = res.Interaction.Steps, string(res.Interaction.Status)
	}
	out := toolOutcome{Stop: interactionsStop(status), Terminal: status != "", ArgFragments: map[int]int{}}
	for _, s := range steps {
		switch {
		case s.ModelOutputStep != nil:
			for _, ct := range s.ModelOutputStep.Content {
				if ct.TextContent != nil {
					out.Text += ct.TextContent.Text
				}
			}
		case s.FunctionCallStep != nil:
			args := []byte("{}")
			if s.FunctionCallStep.Arguments != nil {
				args, _ = json.Marshal(s.FunctionCallStep.Arguments)
			}
			out.Calls = append(out.Calls, toolCall{ID: s.FunctionCallStep.ID, Name: s.FunctionCallStep.Name, Args: string(args)})
		}
	}
	return out, nil
}
