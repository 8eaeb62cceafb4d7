package caddytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// TestPreviousResponseID continues conversations by previous_response_id
// with openai-go over HTTP through every upstream of another protocol:
// turn 1 gets the tool calls, turn 2 sends only the results and the id of
// turn 1's answer, and the upstream gets the whole history; streamed and
// not.
func TestPreviousResponseID(t *testing.T) {
	env := setup(t)
	tool := responses.ToolParamOfFunction(weatherTool.Name, weatherTool.Schema, false)
	tool.OfFunction.Description = openai.String(weatherTool.Description)
	for _, stream := range []bool{false, true} {
		for _, up := range allProtocols {
			if up.family() == openaiResponses.family() {
				continue
			}
			t.Run(modeName(stream)+"/"+string(up), func(t *testing.T) {
				env.mocks.resetAll(t)
				m := env.mocks[up]
				sent := agentCase.calls(up)
				model := openaiResponses.defaultModel()
				c := openai.NewClient(openaiopt.WithBaseURL(env.plain[up]+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				create := func(params responses.ResponseNewParams) (*responses.Response, error) {
					if !stream {
						return c.Responses.New(ctx, params)
					}
					s := c.Responses.NewStreaming(ctx, params)
					var done *responses.Response
					for s.Next() {
						if ev := s.Current(); ev.Type == "response.completed" {
							r := ev.Response
							done = &r
						}
					}
					if s.Err() != nil {
						return nil, s.Err()
					}
					if done == nil {
						return nil, errors.New("the stream ended without response.completed")
					}
					return done, nil
				}

				m.setScenario(toolCallAnswer(up, model, sent, stream))
				first, err := create(responses.ResponseNewParams{Model: model, Tools: []responses.ToolUnionParam{tool},
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(agentCase.prompt)}})
				if err != nil {
					t.Fatalf("turn 1: %s", describeStreamErr(err))
				}
				var results responses.ResponseInputParam
				for _, item := range first.Output {
					if item.Type == "function_call" {
						out := responses.ResponseInputItemParamOfFunctionCallOutput(toolResults[item.Name])
						out.OfFunctionCallOutput.CallID = openai.String(item.CallID)
						results = append(results, out)
					}
				}
				if len(results) != len(sent) {
					t.Fatalf("turn 1: %d calls, want %d", len(results), len(sent))
				}

				want := reply{Text: fmt.Sprintf("Continued via %s ✓", up), Stop: "end", Usage: defaultUsage}
				m.clearRequests()
				m.setReply(want)
				m.setCheck(func(body []byte) []string {
					v := viewTools(up, body)
					return append(append(v.Problems, checkToolDefs(v, agentCase.tools)...), checkHistory(up, v, sent, toolResults)...)
				})
				second, err := create(responses.ResponseNewParams{Model: model, Tools: []responses.ToolUnionParam{tool},
					PreviousResponseID: openai.String(first.ID), Input: responses.ResponseNewParamsInputUnion{OfInputItemList: results}})
				if err != nil {
					t.Fatalf("turn 2: %s", describeStreamErr(err))
				}
				if second.OutputText() != want.Text {
					t.Errorf("turn 2: %q, want %q: %s", second.OutputText(), want.Text, second.RawJSON())
				}

				// An id llmbridge never issued: OpenAI's error, no upstream call.
				m.clearRequests()
				_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: model, PreviousResponseID: openai.String("resp_unknown"),
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Hi")}})
				var apiErr *openai.Error
				if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "previous_response_not_found" || apiErr.Param != "previous_response_id" {
					t.Errorf("an unknown id: %v", err)
				}
				if _, hits := m.lastRequest(); hits != 0 {
					t.Errorf("an unknown id reached the upstream")
				}
			})
		}
	}
}

// TestOpenAIGoWebSocket runs a tool loop with openai-go's Responses
// WebSocket client over one connection through every upstream: turn 2
// sends only the results and previous_response_id; an unknown id is the
// SDK's protocol error with previous_response_not_found, and the
// connection goes on.
func TestOpenAIGoWebSocket(t *testing.T) {
	env := setup(t)
	tool := responses.ToolParamOfFunction(weatherTool.Name, weatherTool.Schema, false)
	tool.OfFunction.Description = openai.String(weatherTool.Description)
	for _, up := range allProtocols {
		t.Run(string(up), func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[up]
			sent := agentCase.calls(up)
			model := openaiResponses.defaultModel()
			c := openai.NewClient(openaiopt.WithBaseURL(env.plain[up]+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			conn, err := c.Responses.Connect(ctx, responses.ResponseConnectionOptions{})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer conn.Close()

			m.setScenario(toolCallAnswer(up, model, sent, true))
			err = conn.Create(ctx, responses.ResponsesClientEventResponseCreateParam{Model: model, Store: openai.Bool(false),
				Tools: []responses.ToolUnionParam{tool}, Input: responses.ResponsesClientEventResponseCreateInputUnionParam{OfString: openai.String(agentCase.prompt)}})
			if err != nil {
				t.Fatal(err)
			}
			first, err := conn.FinalResponse(ctx)
			if err != nil {
				t.Fatalf("turn 1: %v", err)
			}
			var results responses.ResponseInputParam
			for _, item := range first.Output {
				if item.Type == "function_call" {
					out := responses.ResponseInputItemParamOfFunctionCallOutput(toolResults[item.Name])
					out.OfFunctionCallOutput.CallID = openai.String(item.CallID)
					results = append(results, out)
				}
			}
			if len(results) != len(sent) {
				t.Fatalf("turn 1: %d calls, want %d", len(results), len(sent))
			}

			// An unknown id: an error event, and the connection goes on.
			// A Responses upstream gets it instead: it keeps its own
			// responses, which the mock does not emulate.
			if up.family() != openaiResponses.family() {
				m.clearRequests()
				err = conn.Create(ctx, responses.ResponsesClientEventResponseCreateParam{Model: model, PreviousResponseID: openai.String("resp_unknown"),
					Input: responses.ResponsesClientEventResponseCreateInputUnionParam{OfString: openai.String("Hi")}})
				if err != nil {
					t.Fatal(err)
				}
				var protoErr *responses.ResponseProtocolError
				if _, err := conn.FinalResponse(ctx); !errors.As(err, &protoErr) || !strings.Contains(protoErr.Event.RawJSON(), "previous_response_not_found") {
					t.Fatalf("an unknown id: %v", err)
				}
			}

			want := reply{Text: fmt.Sprintf("Continued via %s over openai-go's socket ✓", up), Stop: "end", Usage: defaultUsage}
			m.clearRequests()
			m.setReply(want)
			m.setCheck(func(body []byte) []string {
				v := viewTools(up, body)
				return append(append(v.Problems, checkToolDefs(v, agentCase.tools)...), checkHistory(up, v, sent, toolResults)...)
			})
			err = conn.Create(ctx, responses.ResponsesClientEventResponseCreateParam{Model: model, Store: openai.Bool(false), Tools: []responses.ToolUnionParam{tool},
				PreviousResponseID: openai.String(first.ID), Input: responses.ResponsesClientEventResponseCreateInputUnionParam{OfResponse: &results}})
			if err != nil {
				t.Fatal(err)
			}
			second, err := conn.FinalResponse(ctx)
			if err != nil {
				t.Fatalf("turn 2: %v", err)
			}
			if second.OutputText() != want.Text {
				t.Errorf("turn 2: %q, want %q: %s", second.OutputText(), want.Text, second.RawJSON())
			}
		})
	}
}

// TestPreviousResponseIDRefusalLogged sends an id llmbridge never issued
// to the observed site: the refusal is logged as a refused request is.
func TestPreviousResponseIDRefusalLogged(t *testing.T) {
	env := setup(t)
	before := len(observedEntries(t, env, 0))
	resp := postJSON(t, env.observed+"/v1/responses", `{"model":"claude-sonnet-4-20250514","previous_response_id":"resp_never","input":"Hi"}`)
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	e := observedEntries(t, env, before+1)[before]
	if e.Get("llmbridge.client_protocol").Str != string(openaiResponses) || e.Get("llmbridge.error_type").Str != "invalid_request" || e.Get("status").Int() != 400 {
		t.Errorf("the refusal's entry: %s", e.Raw)
	}
}
