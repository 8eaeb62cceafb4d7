package writers

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
)

// notingHost notes the statuses the writers tell it of.
type notingHost struct{ statuses []int }

func (h *notingHost) NoteUpstream(_ http.ResponseWriter, _ *observe.Exchange, status int, _ http.Header) {
	h.statuses = append(h.statuses, status)
}

// opener counts the streams it is told of.
type opener struct{ opened int }

func (o *opener) StreamOpened() { o.opened++ }

func newSite(host Host) *Site {
	return &Site{Config: streams.Config{Logger: zap.NewNop(), MaxEventSize: 1 << 16, MaxFrameSize: MaxResponseBody}, Host: host,
		Recycle: func(codec.Scratch) {}}
}

const chatAnswer = `{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`

// TestTranslating translates a Chat answer for an Anthropic client, holds
// a refusal for a retry and makes the retry's writer, streams an answer to
// a client that asked for a stream (telling the first writer's opener),
// and answers an upstream that wrote nothing or too much.
func TestTranslating(t *testing.T) {
	host := new(notingHost)
	site := newSite(host)
	answer := func(tw *Translating, status int, ctype, body string) {
		tw.Header().Set("Content-Type", ctype)
		tw.WriteHeader(status)
		_, _ = io.WriteString(tw, body)
	}
	newWriter := func(w http.ResponseWriter, stream bool) *Translating {
		return &Translating{ResponseWriter: w, Site: site, Client: codec.AnthropicMessages, Req: &codec.Request{Model: "claude", Stream: stream},
			Exchange: &observe.Exchange{Client: codec.AnthropicMessages, Upstream: codec.OpenAIChat}, Model: "claude-as-asked"}
	}

	w := httptest.NewRecorder()
	tw := newWriter(w, false)
	answer(tw, 200, "application/json", chatAnswer)
	if _, _, _, held := tw.Held(nil); !held || tw.Status() != 200 {
		t.Fatal("a JSON answer is not held")
	}
	if err := tw.Finish(nil); err != nil {
		t.Fatal(err)
	}
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"type":"message"`) || !strings.Contains(w.Body.String(), `"claude-as-asked"`) {
		t.Errorf("translated %d %s", w.Code, w.Body)
	}

	w = httptest.NewRecorder()
	tw = newWriter(w, false)
	answer(tw, 400, "application/json", `{"error":{"message":"bad top_p","type":"invalid_request_error"}}`)
	status, _, body, held := tw.Held(nil)
	if !held || status != 400 || !strings.Contains(string(*body), "bad top_p") {
		t.Fatalf("the refusal held: %v %d", held, status)
	}
	if _, _, _, held := tw.Held(errors.New("reset")); held {
		t.Error("an answer that broke off is held for a retry")
	}
	retry := tw.Retry()
	if retry.Site != site || retry.Model != tw.Model || retry.Req != tw.Req || retry.Status() != 0 {
		t.Errorf("retry writer %+v", retry)
	}
	answer(retry, 200, "application/json", chatAnswer)
	_ = retry.Finish(nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "Hello") {
		t.Errorf("the retry's answer: %d %s", w.Code, w.Body)
	}

	w = httptest.NewRecorder()
	tw = newWriter(w, true)
	o := new(opener)
	tw.OnStream = o
	answer(tw, 200, "text/event-stream", "data: "+strings.Replace(chatAnswer, `"object":"chat.completion"`, `"object":"chat.completion.chunk"`, 1)+"\n\n")
	_ = tw.Finish(nil)
	if o.opened != 1 || !strings.Contains(w.Body.String(), "event: message_start") {
		t.Errorf("stream: opened %d, body %s", o.opened, w.Body)
	}
	if _, _, _, held := tw.Held(nil); held {
		t.Error("a stream is held for a retry")
	}

	w = httptest.NewRecorder()
	_ = newWriter(w, false).Finish(nil)
	if w.Code != http.StatusBadGateway || !strings.Contains(w.Body.String(), "upstream request failed") {
		t.Errorf("nothing written: %d %s", w.Code, w.Body)
	}
	if len(host.statuses) != 4 {
		t.Errorf("statuses noted %v, want one per answer", host.statuses)
	}
}

// TestPassthrough passes a faithful JSON answer byte for byte, holds a
// refusal for a retry, answers a body that is not the protocol's with the
// client's error, and restores the client's model.
func TestPassthrough(t *testing.T) {
	site := newSite(new(notingHost))
	x := &observe.Exchange{Client: codec.OpenAIChat, Upstream: codec.OpenAIChat}
	write := func(pw *Passthrough, status int, ctype, body string) {
		pw.Header().Set("Content-Type", ctype)
		pw.WriteHeader(status)
		_, _ = io.WriteString(pw, body)
	}

	w := httptest.NewRecorder()
	pw := NewPassthrough(w, site, x, codec.OpenAIChat, "gpt-4o", false)
	write(pw, 200, "application/json", chatAnswer)
	if !pw.Answered() || !pw.Recoverable() || pw.Status() != 200 {
		t.Fatalf("held answer: answered %v, recoverable %v", pw.Answered(), pw.Recoverable())
	}
	pw.Finish(nil)
	if w.Body.String() != chatAnswer {
		t.Errorf("passed on %s", w.Body)
	}

	w = httptest.NewRecorder()
	pw = NewPassthrough(w, site, x, codec.OpenAIChat, "gpt-4o", false)
	write(pw, 400, "application/json", `{"error":{"message":"no","type":"invalid_request_error"}}`)
	if _, _, _, held := pw.Held(nil); !held {
		t.Fatal("the refusal is not held")
	}
	retry := pw.Retry(w)
	retry.Restore = []byte(`"client-model"`)
	write(retry, 200, "application/json", chatAnswer)
	retry.Finish(nil)
	if !strings.Contains(w.Body.String(), `"model":"client-model"`) {
		t.Errorf("the retry's answer: %s", w.Body)
	}

	w = httptest.NewRecorder()
	pw = NewPassthrough(w, site, x, codec.AnthropicMessages, "claude", false)
	write(pw, 502, "text/html", "<html>bad gateway</html>")
	pw.Finish(nil)
	if w.Code != 502 || !strings.HasPrefix(w.Body.String(), `{"type":"error"`) {
		t.Errorf("an error page: %d %s", w.Code, w.Body)
	}

	w = httptest.NewRecorder()
	pw = NewPassthrough(w, site, x, codec.OpenAIChat, "gpt-4o", false)
	if pw.Answered() || pw.Recoverable() {
		t.Error("a writer without an answer says it has one")
	}
	site.UpstreamFailed(w, codec.OpenAIChat, errors.New("dial tcp: refused"), x)
	if w.Code != http.StatusBadGateway || strings.Contains(w.Body.String(), "dial tcp") || x.ErrReason != "upstream_unreachable" {
		t.Errorf("unreachable: %d %s (%s)", w.Code, w.Body, x.ErrReason)
	}
}
