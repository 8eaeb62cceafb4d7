package streams

import (
	"net/http"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// WatchKey takes an event of a stream answered to a request made with
// the member x.key of the pool, until the stream's first content (see
// failover.PreContent): a rate-limit error event before any content (Bedrock's
// throttlingException, Anthropic's rate_limit_error, OpenAI's or
// Gemini's in-stream 429) cools the member as a 429 answer would, for
// the default cooldown since an event carries no Retry-After; the first
// content event ends the watch. It reports whether the watch is over:
// the stream showed content or failed.
func WatchKey(p *failover.Pool, w http.ResponseWriter, x *observe.Exchange, ev *codec.Event) bool {
	switch {
	case failover.PreContent(ev.Type):
		return false
	case ev.Type == codec.EventError:
		KeyStreamFailed(p, w, x, ev.Err)
	}
	return true
}

// KeyStreamFailed takes the error e that ended a stream answered to a
// request made with the member x.key of the pool, before any content.
func KeyStreamFailed(p *failover.Pool, w http.ResponseWriter, x *observe.Exchange, e *codec.Error) {
	if e == nil || e.Status != http.StatusTooManyRequests && e.Kind != mapping.ErrRateLimit {
		return
	}
	others := p.Note(int(x.Key)-1, http.StatusTooManyRequests, nil)
	if fw := failover.Of(w); fw != nil && others {
		// As for a 429 answer: only the member cools, not the target.
		fw.NoteKey(http.StatusTooManyRequests)
	}
}
