package caddytest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/auth"
	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"
)

// streamResult is what a client SDK's streaming API made of a streamed
// response, normalised like result.
type streamResult struct {
	result
	// Refusal is refusal text, for the protocols that stream it apart from
	// the text (Chat delta.refusal, Responses response.refusal.delta).
	Refusal string
	// Deltas is how many non-empty text deltas the SDK yielded.
	Deltas int
	// Terminal reports that the protocol's own end of a complete answer
	// arrived: a Chat finish_reason, Responses response.completed or
	// response.incomplete, Anthropic message_stop, a Gemini finishReason.
	Terminal bool
	// FinalText is the output text of the response object in the Responses
	// terminal event, which repeats the deltas (Responses only).
	FinalText string
}

// streamOptions parameterise a streaming call.
type streamOptions struct {
	// onText is called with every non-empty text delta as the SDK yields
	// it, before the next is read.
	onText func(string)
	// transport carries the SDK's requests; nil means sdkTransport.
	transport *http.Transport
	// project is the project Vertex clients name in their paths; empty
	// means clientProject.
	project string
	// xAPIKey makes a first-party Anthropic client send its key in
	// X-Api-Key, as the real API wants it, instead of the bearer token the
	// SDK's WithAPIKey sends (llmbridge moves either into the upstream's
	// scheme; a mock called directly wants X-Api-Key).
	xAPIKey bool
}

func (o streamOptions) text(s string) {
	if o.onText != nil && s != "" {
		o.onText(s)
	}
}

func (o streamOptions) httpClient() *http.Client {
	t := o.transport
	if t == nil {
		t = sdkTransport
	}
	// No client timeout: the caller's context bounds the whole stream.
	return &http.Client{Transport: t}
}

func (o streamOptions) vertexProject() string {
	if o.project == "" {
		return clientProject
	}
	return o.project
}

// sdkTransport carries every SDK call of the suite, so that their
// keep-alive connections share one pool the tests can close (left to
// themselves, the SDKs clone a transport per client, whose idle
// connections nobody can close); the disconnect test gives each call its
// own.
var sdkTransport = newSDKTransport()

func newSDKTransport() *http.Transport {
	return &http.Transport{MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second}
}

// sdkHTTPClient is the HTTP client of the SDKs' non-streaming calls.
var sdkHTTPClient = &http.Client{Transport: sdkTransport, Timeout: callTimeout}

// streamingClient is a client SDK with a streaming API.
type streamingClient interface {
	sdkClient
	// stream sends conv to the llmbridge site at base with the SDK's
	// streaming API and returns what arrived, with the SDK's error if the
	// stream failed (and the partial result before it).
	stream(ctx context.Context, base string, conv conversation, o streamOptions) (streamResult, error)
}

// streamingClients returns one streaming adapter per client protocol.
func streamingClients() map[proto]streamingClient {
	return map[proto]streamingClient{
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

// stream uses Chat NewStreaming with stream_options.include_usage.
func (chatClient) stream(ctx context.Context, base string, conv conversation, o streamOptions) (streamResult, error) {
	c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0),
		openaiopt.WithHTTPClient(o.httpClient()))
	params, opts := chatParams(conv)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	st := c.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer st.Close()
	var res streamResult
	var text, refusal strings.Builder
	for st.Next() {
		chunk := st.Current()
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				res.Deltas++
				o.text(d)
			}
			refusal.WriteString(ch.Delta.Refusal)
			if ch.FinishReason != "" {
				res.Stop = normaliseStop(openaiChat, ch.FinishReason)
				res.Terminal = true
			}
		}
		if chunk.JSON.Usage.Valid() {
			res.InputTokens, res.OutputTokens = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
		}
	}
	res.Text, res.Refusal = text.String(), refusal.String()
	return res, st.Err()
}

// responsesStreamError is a Responses stream's own error: an error event
// or response.failed, which openai-go yields as events (it only turns an
// event whose data has a top-level "error" member into an error).
type responsesStreamError struct {
	Event, Code, Message string
}

func (e *responsesStreamError) Error() string {
	return fmt.Sprintf("responses stream %s event: %s: %s", e.Event, e.Code, e.Message)
}

// stream uses Responses NewStreaming. An error or response.failed event is
// the stream's error.
func (responsesClient) stream(ctx context.Context, base string, conv conversation, o streamOptions) (streamResult, error) {
	c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0),
		openaiopt.WithHTTPClient(o.httpClient()))
	params, opts := responsesParams(conv)
	st := c.Responses.NewStreaming(ctx, params, opts...)
	defer st.Close()
	var res streamResult
	var text, refusal strings.Builder
	var failure *responsesStreamError
	for st.Next() {
		ev := st.Current()
		switch ev.Type {
		case "response.output_text.delta":
			if ev.Delta != "" {
				text.WriteString(ev.Delta)
				res.Deltas++
				o.text(ev.Delta)
			}
		case "response.refusal.delta":
			refusal.WriteString(ev.Delta)
		case "response.completed", "response.incomplete":
			final := ev.Response
			r := responsesResult(&final)
			res.Stop, res.InputTokens, res.OutputTokens = r.Stop, r.InputTokens, r.OutputTokens
			res.FinalText = r.Text
			res.Terminal = true
		case "error":
			if failure == nil {
				failure = &responsesStreamError{Event: ev.Type, Code: ev.Code, Message: ev.Message}
			}
		case "response.failed":
			if failure == nil {
				failure = &responsesStreamError{Event: ev.Type, Code: string(ev.Response.Error.Code), Message: ev.Response.Error.Message}
			}
		}
	}
	res.Text, res.Refusal = text.String(), refusal.String()
	if err := st.Err(); err != nil {
		return res, err
	}
	if failure != nil {
		return res, failure
	}
	return res, nil
}

// stream uses Messages NewStreaming (first party, or Vertex through the
// SDK's vertex package, which posts to :streamRawPredict) and the SDK's
// accumulator.
func (a anthropicClient) stream(ctx context.Context, base string, conv conversation, o streamOptions) (streamResult, error) {
	// The HTTP client goes first: the vertex option wraps the client it
	// finds in its credentials.
	opts := append([]anthropicopt.RequestOption{anthropicopt.WithHTTPClient(o.httpClient())}, a.options(ctx, base, conv, o.vertexProject())...)
	if o.xAPIKey && !a.vertex && !a.bedrock {
		opts = append(opts, anthropicopt.WithHeaderDel("authorization"), anthropicopt.WithHeader("x-api-key", clientKey))
	}
	c := anthropic.NewClient(opts...)
	st := c.Messages.NewStreaming(ctx, anthropicParams(conv))
	defer st.Close()
	var res streamResult
	var msg anthropic.Message
	var accErr error
	for st.Next() {
		ev := st.Current()
		if err := msg.Accumulate(ev); err != nil && accErr == nil {
			accErr = err
		}
		switch ev.Type {
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
				res.Deltas++
				o.text(ev.Delta.Text)
			}
		case "message_stop":
			res.Terminal = true
		}
	}
	res.result = anthropicResult(a.protocol(), &msg)
	if msg.StopReason == "" {
		res.Stop = ""
	}
	if err := st.Err(); err != nil {
		return res, err
	}
	if accErr != nil {
		return res, fmt.Errorf("the SDK's accumulator rejected the stream: %w", accErr)
	}
	return res, nil
}

// stream uses GenerateContentStream (Gemini API or Vertex).
func (g genaiClient) stream(ctx context.Context, base string, conv conversation, o streamOptions) (streamResult, error) {
	tr := o.transport
	if tr == nil {
		tr = sdkTransport
	}
	c, err := g.newClient(ctx, base, o.vertexProject(), tr)
	if err != nil {
		return streamResult{}, err
	}
	contents, cfg := genaiParams(conv)
	var res streamResult
	var text strings.Builder
	for resp, err := range c.Models.GenerateContentStream(ctx, conv.Model, contents, cfg) {
		if err != nil {
			res.Text = text.String()
			return res, err
		}
		if len(resp.Candidates) > 0 && resp.Candidates[0] != nil {
			cand := resp.Candidates[0]
			if cand.Content != nil {
				for _, p := range cand.Content.Parts {
					if p != nil && !p.Thought && p.Text != "" {
						text.WriteString(p.Text)
						res.Deltas++
						o.text(p.Text)
					}
				}
			}
			if cand.FinishReason != "" {
				res.Stop = normaliseStop(g.protocol(), string(cand.FinishReason))
				res.Terminal = true
			}
		}
		if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			res.Stop = "content_filter"
			res.Terminal = true
		}
		if u := resp.UsageMetadata; u != nil {
			res.InputTokens, res.OutputTokens = genaiUsage(u)
		}
	}
	res.Text = text.String()
	return res, nil
}

// streamErrorMessage returns the message a streaming error carries.
func streamErrorMessage(err error) string {
	var re *responsesStreamError
	if errors.As(err, &re) {
		return re.Message
	}
	return sdkErrorMessage(err)
}

// describeStreamErr describes a streaming error for failure messages.
func describeStreamErr(err error) string {
	var re *responsesStreamError
	if errors.As(err, &re) {
		return re.Error()
	}
	return fmt.Sprintf("%s (%T)", describeErr(err), err)
}

// Interface guards: every adapter streams.
var (
	_ streamingClient    = chatClient{}
	_ streamingClient    = responsesClient{}
	_ streamingClient    = anthropicClient{}
	_ streamingClient    = genaiClient{}
	_ auth.TokenProvider = staticToken{}
)
