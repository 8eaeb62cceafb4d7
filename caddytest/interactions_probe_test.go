package caddytest

import (
	"context"
	"fmt"

	"google.golang.org/genai"
	gi "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
)

// probe sends one question with genai's Interactions client and reports
// the answer: its text, its status as the wire stop, its usage by the
// interaction's own field names and the model it names. A streamed probe
// is terminal when interaction.completed came.
func (c interactionsClient) probe(ctx context.Context, base string, r probeRequest) (probeOutcome, error) {
	client, err := c.newClient(ctx, base, "", sdkTransport)
	if err != nil {
		return probeOutcome{}, err
	}
	body := gi.CreateModelInteraction{Model: gi.Model(c.protocol().defaultModel()), Input: ptr(gi.NewInteractionsInput("Tell me something."))}
	if r.MaxTokens > 0 {
		body.GenerationConfig = &gi.GenerationConfig{MaxOutputTokens: ptr(int(r.MaxTokens))}
	}
	if level, ok := interactionsThinkingLevel(r.Thinking); ok {
		if body.GenerationConfig == nil {
			body.GenerationConfig = &gi.GenerationConfig{}
		}
		body.GenerationConfig.ThinkingLevel = &level
	}
	if r.Stream {
		body.Stream = ptr(true)
	}
	store := false
	body.Store = &store
	res, err := client.Interactions.Create(ctx, operations.CreateInteractionRequest{Body: operations.NewCreateInteractionRequestBody(body)}, noRetries)
	if err != nil {
		return probeOutcome{}, err
	}
	var out probeOutcome
	usage := func(u *gi.Usage) {
		if u == nil {
			return
		}
		out.Usage = map[string]int64{}
		for k, v := range map[string]*int{"total_input_tokens": u.TotalInputTokens, "total_output_tokens": u.TotalOutputTokens,
			"total_cached_tokens": u.TotalCachedTokens, "total_thought_tokens": u.TotalThoughtTokens} {
			if v != nil && *v != 0 {
				out.Usage[k] = int64(*v)
			}
		}
	}
	if !r.Stream {
		it := res.Interaction
		if it == nil {
			return out, fmt.Errorf("no interaction in the answer")
		}
		if it.OutputText != nil {
			out.Text = *it.OutputText
		}
		out.Wire, out.Terminal = string(it.Status), true
		if it.Model != nil {
			out.Model = string(*it.Model)
		}
		usage(it.Usage)
		out.Stop = interactionsStop(out.Wire)
		return out, nil
	}
	s := res.InteractionSSEStreamEvent
	if s == nil {
		return out, fmt.Errorf("the answer is not a stream")
	}
	defer s.Close()
	for s.Next() {
		ev := s.Value()
		if ev == nil {
			continue
		}
		d := ev.Data
		switch {
		case d.InteractionCreatedEvent != nil:
			if m := d.InteractionCreatedEvent.Interaction.Model; m != nil {
				out.Model = string(*m)
			}
		case d.StepDelta != nil && d.StepDelta.Delta.TextDelta != nil:
			out.Text += d.StepDelta.Delta.TextDelta.Text
		case d.InteractionCompletedEvent != nil:
			i := d.InteractionCompletedEvent.Interaction
			out.Wire, out.Terminal = string(i.Status), true
			if i.Model != nil && out.Model == "" {
				out.Model = string(*i.Model)
			}
			usage(i.Usage)
		case d.ErrorEvent != nil:
			return out, &interactionsStreamError{event: d.ErrorEvent.Error}
		}
	}
	out.Stop = interactionsStop(out.Wire)
	return out, s.Err()
}

// interactionsThinkingLevel is the thinking_level a genai thinking
// configuration stands for: a budget of 0 is minimal, a small budget low,
// any other (dynamic included) high.
func interactionsThinkingLevel(tc *genai.ThinkingConfig) (gi.ThinkingLevel, bool) {
	if tc == nil || tc.ThinkingBudget == nil {
		return "", false
	}
	switch b := *tc.ThinkingBudget; {
	case b == 0:
		return "minimal", true
	case b > 0 && b <= 2048:
		return "low", true
	}
	return "high", true
}

// interactionsRefusal is what an Interactions client must make of a
// refusal: the API has no refusal slot and no filter status, so a
// refusal's text (or the explanation, slot) is the output, one with
// neither an error, and a filter stop output cut short.
func interactionsRefusal(filter bool, slot string) refusalWant {
	switch {
	case filter:
		return refusalWant{wire: "incomplete"}
	case slot == "":
		return refusalWant{err: true}
	}
	return refusalWant{text: slot, wire: "completed"}
}

// interactionsThinking is what an Interactions upstream must receive for
// a reasoning setting: thinking_level and thinking_summaries, "" for a
// member that must be absent (no level for none or an unset effort, whose
// level the model rules decide).
func interactionsThinking(level, summaries string) map[string]string {
	quote := func(v string) string {
		if v == "" {
			return ""
		}
		return `"` + v + `"`
	}
	return map[string]string{"generation_config.thinking_level": quote(level), "generation_config.thinking_summaries": quote(summaries)}
}
