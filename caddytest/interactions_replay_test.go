package caddytest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	gi "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
)

// agentReplay runs the agent conversation with genai's Interactions
// client as Google's function-calling guide writes it: turn 1's steps
// (the thought with its signature, the function call) are sent back as
// they came, followed by a function_result step answering the call by
// its id, with store false (the application keeps the history). A
// streamed turn's steps are built from its events, as the SDK's users
// do.
func (c interactionsClient) agentReplay(ctx context.Context, base string, o replayOptions) (replayOutcome, error) {
	client, err := c.newClient(ctx, base, "", sdkTransport)
	if err != nil {
		return replayOutcome{}, err
	}
	var out replayOutcome
	input := []gi.Step{gi.NewStep(gi.UserInputStep{Content: []gi.Content{gi.NewContent(gi.TextContent{Text: rzPrompt})}})}
	name := "get_weather"
	tools := []gi.Tool{gi.NewTool(gi.Function{Name: &name, Parameters: rzToolSchema})}
	turn := func() ([]gi.Step, string, error) {
		store, maxTokens, level := false, 20000, gi.ThinkingLevel("high")
		body := gi.CreateModelInteraction{Model: gi.Model(c.protocol().defaultModel()), Input: ptr(gi.NewInteractionsInput(input)),
			Tools: tools, Store: &store, GenerationConfig: &gi.GenerationConfig{MaxOutputTokens: &maxTokens, ThinkingLevel: &level}}
		if o.stream {
			body.Stream = &o.stream
		}
		res, err := client.Interactions.Create(ctx, operations.CreateInteractionRequest{Body: operations.NewCreateInteractionRequestBody(body)}, noRetries)
		if err != nil {
			return nil, "", err
		}
		if !o.stream {
			if res.Interaction == nil {
				return nil, "", fmt.Errorf("no interaction in the answer")
			}
			return res.Interaction.Steps, string(res.Interaction.Status), nil
		}
		return foldInteractionsStream(res)
	}
	steps, status, err := turn()
	if err != nil {
		return out, fmt.Errorf("turn 1: %w", err)
	}
	out.Stop1 = interactionsStop(status)
	for _, s := range steps {
		switch {
		case s.ThoughtStep != nil:
			for _, sc := range s.ThoughtStep.Summary {
				if sc.TextContent != nil {
					out.Reasoning += sc.TextContent.Text
				}
			}
		case s.FunctionCallStep != nil:
			args, _ := json.Marshal(s.FunctionCallStep.Arguments)
			out.Calls = append(out.Calls, toolCall{ID: s.FunctionCallStep.ID, Name: s.FunctionCallStep.Name, Args: string(args)})
		}
		input = append(input, s)
	}
	for _, call := range out.Calls {
		callName := call.Name
		input = append(input, gi.NewStep(gi.FunctionResultStep{CallID: call.ID, Name: &callName,
			Result: gi.NewFunctionResultStepResultUnion(rzResult)}))
	}
	if o.between != nil {
		o.between()
	}
	steps, status, err = turn()
	if err != nil {
		return out, fmt.Errorf("turn 2: %w", err)
	}
	var text strings.Builder
	for _, s := range steps {
		if s.ModelOutputStep != nil {
			for _, ct := range s.ModelOutputStep.Content {
				if ct.TextContent != nil {
					text.WriteString(ct.TextContent.Text)
				}
			}
		}
	}
	out.Text2, out.Stop2 = text.String(), interactionsStop(status)
	return out, nil
}

// foldInteractionsStream builds the steps a streamed interaction's events
// carry (step.start, then its deltas) and returns them with the final
// status; an error event is the stream's error.
func foldInteractionsStream(res *operations.CreateInteractionResponse) ([]gi.Step, string, error) {
	s := res.InteractionSSEStreamEvent
	if s == nil {
		return nil, "", fmt.Errorf("the answer is not a stream")
	}
	defer s.Close()
	var steps []gi.Step
	args := map[int]*strings.Builder{}
	status := ""
	for s.Next() {
		ev := s.Value()
		if ev == nil {
			continue
		}
		d := ev.Data
		switch {
		case d.StepStart != nil:
			for len(steps) <= d.StepStart.Index {
				steps = append(steps, gi.Step{})
			}
			steps[d.StepStart.Index] = d.StepStart.Step
		case d.StepDelta != nil && d.StepDelta.Index < len(steps):
			st, dd := &steps[d.StepDelta.Index], d.StepDelta.Delta
			switch {
			case dd.TextDelta != nil && st.ModelOutputStep != nil:
				st.ModelOutputStep.Content = append(st.ModelOutputStep.Content, gi.NewContent(gi.TextContent{Text: dd.TextDelta.Text}))
			case dd.ThoughtSummaryDelta != nil && st.ThoughtStep != nil && dd.ThoughtSummaryDelta.Content != nil && dd.ThoughtSummaryDelta.Content.TextContent != nil:
				st.ThoughtStep.Summary = append(st.ThoughtStep.Summary, gi.NewThoughtSummaryContent(*dd.ThoughtSummaryDelta.Content.TextContent))
			case dd.ThoughtSignatureDelta != nil && st.ThoughtStep != nil:
				st.ThoughtStep.Signature = dd.ThoughtSignatureDelta.Signature
			case dd.ArgumentsDelta != nil && dd.ArgumentsDelta.Arguments != nil:
				if args[d.StepDelta.Index] == nil {
					args[d.StepDelta.Index] = &strings.Builder{}
				}
				args[d.StepDelta.Index].WriteString(*dd.ArgumentsDelta.Arguments)
			}
		case d.InteractionCompletedEvent != nil:
			status = string(d.InteractionCompletedEvent.Interaction.Status)
		case d.ErrorEvent != nil:
			return steps, status, &interactionsStreamError{event: d.ErrorEvent.Error}
		}
	}
	if err := s.Err(); err != nil {
		return steps, status, err
	}
	for i, b := range args {
		if fc := steps[i].FunctionCallStep; fc != nil {
			fc.Arguments = map[string]any{}
			if err := json.Unmarshal([]byte(b.String()), &fc.Arguments); err != nil {
				return steps, status, fmt.Errorf("the call's streamed arguments %q are not JSON: %w", b.String(), err)
			}
		}
	}
	return steps, status, nil
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
