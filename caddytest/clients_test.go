package caddytest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/httptransport"
	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicbedrock "github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	anthropicvertex "github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/genai"
)

// turn is one message of the conversation history.
type turn struct {
	// Role is "user" or "assistant".
	Role string
	Text string
}

// conversation is what every client adapter sends, each with its own SDK.
type conversation struct {
	Model         string
	System        string
	Turns         []turn
	Temperature   float64
	TopP          float64
	MaxTokens     int64
	StopSequences []string // sent only when non-empty
	TopK          int64    // sent only when non-zero
}

// sharedConversation uses only parameters every client and upstream
// protocol can carry: system prompt, three turns, temperature, top_p and
// max tokens. Binary-exact float values keep comparisons exact.
func sharedConversation(model string) conversation {
	return conversation{
		Model:  model,
		System: "You are a terse assistant. Answer in one line.",
		Turns: []turn{
			{"user", `Say "hi" in Portuguese.`},
			{"assistant", "Olá! 👋"},
			{"user", "And in Spanish?\nOne word, please."},
		},
		Temperature: 0.25,
		TopP:        0.75,
		MaxTokens:   321,
	}
}

// result is what a client SDK made of the response, normalised across
// protocols: Stop is "end", "max_tokens", "stop_sequence", "tool_use",
// "content_filter", "refusal" or "other:<wire value>"; token counts have
// OpenAI's inclusive meaning (input includes cached tokens, output includes
// reasoning).
type result struct {
	Text         string
	Stop         string
	InputTokens  int64
	OutputTokens int64
}

// sdkClient is one official SDK speaking one client protocol.
type sdkClient interface {
	protocol() proto
	// generate sends conv to the llmbridge site at base (scheme://host:port)
	// and returns the normalised result or the SDK's error.
	generate(ctx context.Context, base string, conv conversation) (result, error)
}

// sdkClients returns one adapter per client protocol.
func sdkClients() map[proto]sdkClient {
	return map[proto]sdkClient{
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

// sdkErrorStatus returns the HTTP status carried by an SDK error.
func sdkErrorStatus(err error) (int, bool) {
	var oe *openai.Error
	if errors.As(err, &oe) {
		return oe.StatusCode, true
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return ae.StatusCode, true
	}
	var ge genai.APIError
	if errors.As(err, &ge) {
		return ge.Code, true
	}
	var gp *genai.APIError
	if errors.As(err, &gp) {
		return gp.Code, true
	}
	if status, _, ok := interactionsErrorStatus(err); ok && status != 0 {
		return status, true
	}
	return converseErrorStatus(err)
}

// sdkErrorMessage returns the error message an SDK error carries.
func sdkErrorMessage(err error) string {
	var oe *openai.Error
	if errors.As(err, &oe) {
		return oe.Message
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		if m := gjson.Get(ae.RawJSON(), "message"); ae.Message == "" && m.Type == gjson.String {
			// An AWS error body (Bedrock), which the SDK's Bedrock mode
			// leaves as it is.
			return m.Str
		}
		return ae.Message
	}
	var ge genai.APIError
	if errors.As(err, &ge) {
		return ge.Message
	}
	if m, ok := converseErrorMessage(err); ok {
		return m
	}
	if _, m, ok := interactionsErrorStatus(err); ok {
		return m
	}
	return err.Error()
}

// describeErr describes a client error for failure messages: the HTTP
// status and the message of an SDK error, or the error itself.
func describeErr(err error) string {
	if status, ok := sdkErrorStatus(err); ok {
		return fmt.Sprintf("HTTP %d: %s", status, sdkErrorMessage(err))
	}
	return err.Error()
}

// sdkErrorHeader returns the response headers of an SDK error where the SDK
// exposes them (openai-go, anthropic-sdk-go and aws-sdk-go-v2; genai does
// not).
func sdkErrorHeader(err error) (http.Header, bool) {
	var oe *openai.Error
	if errors.As(err, &oe) && oe.Response != nil {
		return oe.Response.Header, true
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) && ae.Response != nil {
		return ae.Response.Header, true
	}
	return converseErrorHeader(err)
}

// chatClient speaks openai-chat through openai-go.
type chatClient struct{}

func (chatClient) protocol() proto { return openaiChat }

func (chatClient) generate(ctx context.Context, base string, conv conversation) (result, error) {
	c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
	params, opts := chatParams(conv)
	resp, err := c.Chat.Completions.New(ctx, params, opts...)
	if err != nil {
		return result{}, err
	}
	var res result
	if len(resp.Choices) > 0 {
		res.Text = resp.Choices[0].Message.Content
		res.Stop = normaliseStop(openaiChat, resp.Choices[0].FinishReason)
	}
	res.InputTokens = resp.Usage.PromptTokens
	res.OutputTokens = resp.Usage.CompletionTokens
	return res, nil
}

// chatParams is conv as a Chat request, with the options for the fields
// openai-go has no parameter for.
func chatParams(conv conversation) (openai.ChatCompletionNewParams, []openaiopt.RequestOption) {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(conv.System)}
	for _, t := range conv.Turns {
		if t.Role == "assistant" {
			msgs = append(msgs, openai.AssistantMessage(t.Text))
		} else {
			msgs = append(msgs, openai.UserMessage(t.Text))
		}
	}
	params := openai.ChatCompletionNewParams{
		Model:               conv.Model,
		Messages:            msgs,
		Temperature:         openai.Float(conv.Temperature),
		TopP:                openai.Float(conv.TopP),
		MaxCompletionTokens: openai.Int(conv.MaxTokens),
	}
	if len(conv.StopSequences) > 0 {
		params.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: conv.StopSequences}
	}
	var opts []openaiopt.RequestOption
	if conv.TopK != 0 {
		opts = append(opts, openaiopt.WithJSONSet("top_k", conv.TopK))
	}
	return params, opts
}

// responsesClient speaks openai-responses through openai-go.
type responsesClient struct{}

func (responsesClient) protocol() proto { return openaiResponses }

func (responsesClient) generate(ctx context.Context, base string, conv conversation) (result, error) {
	c := openai.NewClient(openaiopt.WithBaseURL(base+"/v1/"), openaiopt.WithAPIKey(clientKey), openaiopt.WithMaxRetries(0), openaiopt.WithHTTPClient(sdkHTTPClient))
	params, opts := responsesParams(conv)
	resp, err := c.Responses.New(ctx, params, opts...)
	if err != nil {
		return result{}, err
	}
	return responsesResult(resp), nil
}

// responsesResult normalises a Responses response object.
func responsesResult(resp *responses.Response) result {
	res := result{Text: resp.OutputText(), InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}
	switch {
	case resp.Status == "completed":
		res.Stop = "end"
	case resp.Status == "incomplete" && resp.IncompleteDetails.Reason == "max_output_tokens":
		res.Stop = "max_tokens"
	case resp.Status == "incomplete" && resp.IncompleteDetails.Reason == "content_filter":
		res.Stop = "content_filter"
	default:
		res.Stop = "other:" + string(resp.Status) + "/" + resp.IncompleteDetails.Reason
	}
	return res
}

// responsesParams is conv as a Responses request, with the options for the
// fields the Responses API has no parameter for.
func responsesParams(conv conversation) (responses.ResponseNewParams, []openaiopt.RequestOption) {
	var input responses.ResponseInputParam
	for _, t := range conv.Turns {
		role := responses.EasyInputMessageRoleUser
		if t.Role == "assistant" {
			role = responses.EasyInputMessageRoleAssistant
		}
		input = append(input, responses.ResponseInputItemParamOfMessage(t.Text, role))
	}
	params := responses.ResponseNewParams{
		Model:           conv.Model,
		Instructions:    openai.String(conv.System),
		Input:           responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Temperature:     openai.Float(conv.Temperature),
		TopP:            openai.Float(conv.TopP),
		MaxOutputTokens: openai.Int(conv.MaxTokens),
	}
	var opts []openaiopt.RequestOption
	if len(conv.StopSequences) > 0 {
		// The Responses API has no stop sequences; a client that sends
		// them anyway does so as an extra field.
		opts = append(opts, openaiopt.WithJSONSet("stop", conv.StopSequences))
	}
	if conv.TopK != 0 {
		opts = append(opts, openaiopt.WithJSONSet("top_k", conv.TopK))
	}
	return params, opts
}

// anthropicClient speaks anthropic-messages, vertex-anthropic through the
// SDK's vertex package, or bedrock-anthropic through its bedrock package,
// with anthropic-sdk-go.
type anthropicClient struct{ vertex, bedrock bool }

func (a anthropicClient) protocol() proto {
	switch {
	case a.vertex:
		return vertexAnthropic
	case a.bedrock:
		return bedrockAnthropic
	}
	return anthropicMsgs
}

// platformOptions point the client at base on its platform: the first
// party with an API key, Vertex through the SDK's vertex package (naming
// project in its paths), or Bedrock through its bedrock package with a
// Bedrock API key (which posts to /model/{id}/invoke and reads event
// streams).
func (a anthropicClient) platformOptions(ctx context.Context, base, project string) []anthropicopt.RequestOption {
	switch {
	case a.vertex:
		creds := &google.Credentials{
			ProjectID:   project,
			TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: clientKey, TokenType: "Bearer"}),
		}
		return []anthropicopt.RequestOption{
			anthropicvertex.WithCredentials(ctx, vertexLocation, project, creds),
			anthropicopt.WithBaseURL(base + "/"),
			// The SDK moves its anthropic-version header into the body;
			// Vertex documents vertex-2023-10-16 there, which is what
			// Vertex clients such as Claude Code send.
			anthropicopt.WithHeader("anthropic-version", vertexAnthropicVersion),
		}
	case a.bedrock:
		cfg := aws.Config{Region: awsRegion, BearerAuthTokenProvider: anthropicbedrock.NewStaticBearerTokenProvider(clientKey)}
		return []anthropicopt.RequestOption{
			anthropicbedrock.WithConfig(cfg),
			anthropicopt.WithBaseURL(base),
			// The SDK moves anthropic-version into the body, as Bedrock
			// takes it.
			anthropicopt.WithHeader("anthropic-version", bedrockAnthropicVersion),
		}
	}
	return []anthropicopt.RequestOption{anthropicopt.WithBaseURL(base), anthropicopt.WithAPIKey(clientKey)}
}

func (a anthropicClient) generate(ctx context.Context, base string, conv conversation) (result, error) {
	// The HTTP client goes first: the vertex option wraps the client it
	// finds in its credentials.
	opts := append([]anthropicopt.RequestOption{anthropicopt.WithHTTPClient(sdkHTTPClient)}, a.options(ctx, base, conv, clientProject)...)
	c := anthropic.NewClient(opts...)
	msg, err := c.Messages.New(ctx, anthropicParams(conv))
	if err != nil {
		return result{}, err
	}
	return anthropicResult(a.protocol(), msg), nil
}

// anthropicResult normalises an Anthropic message.
func anthropicResult(p proto, msg *anthropic.Message) result {
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	u := msg.Usage
	return result{
		Text:         text.String(),
		Stop:         normaliseStop(p, string(msg.StopReason)),
		InputTokens:  u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		OutputTokens: u.OutputTokens,
	}
}

// options are the client options for base and conv's extra fields; a
// Vertex client names project in its paths.
func (a anthropicClient) options(ctx context.Context, base string, conv conversation, project string) []anthropicopt.RequestOption {
	opts := append([]anthropicopt.RequestOption{anthropicopt.WithMaxRetries(0)}, a.platformOptions(ctx, base, project)...)
	// anthropic-sdk-go v2 has no typed sampling parameters; the Messages
	// API still takes them, so they travel as extra body fields.
	opts = append(opts,
		anthropicopt.WithJSONSet("temperature", conv.Temperature),
		anthropicopt.WithJSONSet("top_p", conv.TopP))
	if conv.TopK != 0 {
		opts = append(opts, anthropicopt.WithJSONSet("top_k", conv.TopK))
	}
	return opts
}

// anthropicParams is conv as a Messages request.
func anthropicParams(conv conversation) anthropic.MessageNewParams {
	var msgs []anthropic.MessageParam
	for _, t := range conv.Turns {
		if t.Role == "assistant" {
			msgs = append(msgs, anthropic.NewAssistantMessage(anthropic.NewTextBlock(t.Text)))
		} else {
			msgs = append(msgs, anthropic.NewUserMessage(anthropic.NewTextBlock(t.Text)))
		}
	}
	return anthropic.MessageNewParams{
		Model:         anthropic.Model(conv.Model),
		MaxTokens:     conv.MaxTokens,
		System:        []anthropic.TextBlockParam{{Text: conv.System}},
		Messages:      msgs,
		StopSequences: conv.StopSequences,
	}
}

// genaiClient speaks gemini or vertex with google.golang.org/genai.
type genaiClient struct{ backend genai.Backend }

func (g genaiClient) protocol() proto {
	if g.backend == genai.BackendVertexAI {
		return vertex
	}
	return gemini
}

// staticToken is a cloud.google.com/go/auth token provider that always
// returns the client's key as a bearer token.
type staticToken struct{}

func (staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: clientKey, Type: "Bearer"}, nil
}

func (g genaiClient) generate(ctx context.Context, base string, conv conversation) (result, error) {
	c, err := g.newClient(ctx, base, clientProject, sdkTransport)
	if err != nil {
		return result{}, err
	}
	contents, cfg := genaiParams(conv)
	resp, err := c.Models.GenerateContent(ctx, conv.Model, contents, cfg)
	if err != nil {
		return result{}, err
	}
	var res result
	if len(resp.Candidates) > 0 {
		cand := resp.Candidates[0]
		if cand.Content != nil {
			var text strings.Builder
			for _, p := range cand.Content.Parts {
				if p != nil && !p.Thought {
					text.WriteString(p.Text)
				}
			}
			res.Text = text.String()
		}
		res.Stop = normaliseStop(g.protocol(), string(cand.FinishReason))
	}
	if u := resp.UsageMetadata; u != nil {
		res.InputTokens, res.OutputTokens = genaiUsage(u)
	}
	return res, nil
}

// genaiUsage returns usage metadata in the suite's inclusive meaning.
func genaiUsage(u *genai.GenerateContentResponseUsageMetadata) (in, out int64) {
	return int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount), int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount)
}

// config is the client configuration for base; a Vertex client names
// project in its paths.
func (g genaiClient) config(base, project string) *genai.ClientConfig {
	cc := &genai.ClientConfig{Backend: g.backend, HTTPOptions: genai.HTTPOptions{BaseURL: base}}
	if g.backend == genai.BackendVertexAI {
		cc.Project, cc.Location = project, vertexLocation
		cc.Credentials = auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken{}})
		cc.HTTPOptions.APIVersion = "v1"
	} else {
		cc.APIKey = clientKey
	}
	return cc
}

// newClient returns a genai client for base over transport; a Vertex
// client names project in its paths and sends the static token. (Left to
// itself, genai would give every Vertex client a transport of its own,
// whose keep-alive connections nobody could close.)
func (g genaiClient) newClient(ctx context.Context, base, project string, transport *http.Transport) (*genai.Client, error) {
	cc := g.config(base, project)
	cc.HTTPClient = &http.Client{Transport: transport}
	if cc.Credentials != nil {
		// genai only wraps a client it creates itself in the credentials.
		if err := httptransport.AddAuthorizationMiddleware(cc.HTTPClient, cc.Credentials); err != nil {
			return nil, err
		}
	}
	return genai.NewClient(ctx, cc)
}

// genaiParams is conv as genai contents and configuration.
func genaiParams(conv conversation) ([]*genai.Content, *genai.GenerateContentConfig) {
	var contents []*genai.Content
	for _, t := range conv.Turns {
		role := genai.Role(genai.RoleUser)
		if t.Role == "assistant" {
			role = genai.RoleModel
		}
		contents = append(contents, genai.NewContentFromText(t.Text, role))
	}
	temp, topP := float32(conv.Temperature), float32(conv.TopP)
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(conv.System, genai.RoleUser),
		Temperature:       &temp,
		TopP:              &topP,
		MaxOutputTokens:   int32(conv.MaxTokens),
		StopSequences:     conv.StopSequences,
	}
	if conv.TopK != 0 {
		k := float32(conv.TopK)
		cfg.TopK = &k
	}
	return contents, cfg
}

// normaliseStop maps a protocol's stop or finish reason to the suite's
// vocabulary.
func normaliseStop(p proto, v string) string {
	var m map[string]string
	switch p.family() {
	case openaiChat:
		m = map[string]string{"stop": "end", "length": "max_tokens", "tool_calls": "tool_use", "content_filter": "content_filter"}
	case anthropicMsgs:
		m = map[string]string{"end_turn": "end", "max_tokens": "max_tokens", "stop_sequence": "stop_sequence", "tool_use": "tool_use", "refusal": "refusal"}
	case gemini:
		m = map[string]string{"STOP": "end", "MAX_TOKENS": "max_tokens", "SAFETY": "content_filter"}
	case bedrockConverse:
		m = map[string]string{"end_turn": "end", "max_tokens": "max_tokens", "stop_sequence": "stop_sequence", "tool_use": "tool_use",
			"content_filtered": "content_filter", "guardrail_intervened": "content_filter"}
	}
	if s, ok := m[v]; ok {
		return s
	}
	return "other:" + v
}
