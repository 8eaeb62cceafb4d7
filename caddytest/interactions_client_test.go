package caddytest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/httptransport"
	"google.golang.org/genai"
	"google.golang.org/genai/interactions/models/apierrors"
	gi "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
	"google.golang.org/genai/interactions/retry"
)

// noRetries makes the SDK send each create once: the tests count the
// requests and check each failure as the client first sees it, as they do
// with every other SDK (which they build without retries).
var noRetries = operations.WithRetries(retry.Config{Strategy: "none"})

// interactionsClient is google.golang.org/genai's Interactions client:
// on the Gemini API (an API key, /v1beta/interactions) or, with vertex,
// on Vertex AI (a bearer token, /v1beta1/projects/{p}/locations/{l}/
// interactions, the path the SDKs post to there).
type interactionsClient struct{ vertex bool }

func (c interactionsClient) protocol() proto {
	if c.vertex {
		return vertexInteractions
	}
	return geminiInteractions
}

// newClient returns a genai client of the llmbridge site at base; a
// Vertex AI client names project in its paths and sends the client's key
// as its token.
func (c interactionsClient) newClient(ctx context.Context, base, project string, transport *http.Transport) (*genai.Client, error) {
	hc := &http.Client{Transport: transport}
	cc := &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: clientKey, HTTPOptions: genai.HTTPOptions{BaseURL: base}, HTTPClient: hc}
	if c.vertex {
		if project == "" {
			project = clientProject
		}
		creds := auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken{}})
		if err := httptransport.AddAuthorizationMiddleware(hc, creds); err != nil {
			return nil, err
		}
		cc = &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: project, Location: vertexLocation, Credentials: creds,
			HTTPOptions: genai.HTTPOptions{BaseURL: base, APIVersion: "v1beta1"}, HTTPClient: hc}
	}
	return genai.NewClient(ctx, cc)
}

// stream sends conv as the whole history with the SDK's streaming
// create and returns what its events add up to; an error event is the
// stream's error.
func (c interactionsClient) stream(ctx context.Context, base string, conv conversation, o streamOptions) (streamResult, error) {
	tr := o.transport
	if tr == nil {
		tr = sdkTransport
	}
	project := ""
	if c.vertex {
		project = o.vertexProject()
	}
	client, err := c.newClient(ctx, base, project, tr)
	if err != nil {
		return streamResult{}, err
	}
	res, err := client.Interactions.Create(ctx, c.body(conv, gi.NewInteractionsInput(interactionsSteps(conv)), "", true), noRetries)
	if err != nil {
		return streamResult{}, err
	}
	s := res.InteractionSSEStreamEvent
	if s == nil {
		return streamResult{}, fmt.Errorf("the answer is not a stream")
	}
	defer s.Close()
	var out streamResult
	var text strings.Builder
	defer func() { out.Text = text.String() }()
	for s.Next() {
		ev := s.Value()
		if ev == nil {
			continue
		}
		d := ev.Data
		switch {
		case d.StepDelta != nil:
			if t := d.StepDelta.Delta.TextDelta; t != nil && t.Text != "" {
				text.WriteString(t.Text)
				out.Deltas++
				o.text(t.Text)
			}
		case d.InteractionCompletedEvent != nil:
			i := d.InteractionCompletedEvent.Interaction
			out.Stop = interactionsStop(string(i.Status))
			out.Terminal = true
			if u := i.Usage; u != nil {
				out.InputTokens, out.OutputTokens = interactionsUsage(u.TotalInputTokens, u.TotalOutputTokens, u.TotalThoughtTokens)
			}
		case d.ErrorEvent != nil:
			out.Text = text.String()
			return out, &interactionsStreamError{event: d.ErrorEvent.Error}
		}
	}
	out.Text = text.String()
	return out, s.Err()
}

// interactionsStreamError is an error event of an Interactions stream.
type interactionsStreamError struct{ event *gi.Error }

func (e *interactionsStreamError) Error() string {
	if e.event == nil {
		return "error event"
	}
	code, msg := "", ""
	if e.event.Code != nil {
		code = *e.event.Code
	}
	if e.event.Message != nil {
		msg = *e.event.Message
	}
	return "error event " + code + ": " + msg
}

// interactionsErrorStatus returns the HTTP status and message of an error
// of the Interactions client: its generated errors keep the response.
func interactionsErrorStatus(err error) (int, string, bool) {
	var ce *apierrors.CreateInteractionClientError
	if errors.As(err, &ce) && ce.HTTPMeta.Response != nil {
		return ce.HTTPMeta.Response.StatusCode, deref(ce.Error_.Message), true
	}
	var se *apierrors.CreateInteractionServerError
	if errors.As(err, &se) && se.HTTPMeta.Response != nil {
		return se.HTTPMeta.Response.StatusCode, deref(se.Error_.Message), true
	}
	var ae *apierrors.APIError
	if errors.As(err, &ae) {
		return ae.StatusCode, ae.Body, true
	}
	var ie *interactionsStreamError
	if errors.As(err, &ie) && ie.event != nil {
		return 0, deref(ie.event.Message), true
	}
	return 0, "", false
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
