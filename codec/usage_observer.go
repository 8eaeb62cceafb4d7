package codec

import (
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// UsageObserver follows an upstream stream that passes through untranslated
// for the events that report usage and the stop reason, which llmbridge
// records for metrics, placeholders and logs. Decoding every event of a
// stream only for that cost a passthrough as much per event as a
// translation; the observer decodes just the events that can carry either
// (a substring or event-name test on the rest), with one stream decoder
// that sees them in order.
type UsageObserver struct {
	p     Protocol
	codec Translator // p's codec, looked up once rather than per event
	dec   StreamDecoder
}

// NewUsageObserver returns an observer for streams of protocol p; for an
// unknown protocol it observes nothing.
func NewUsageObserver(p Protocol) *UsageObserver {
	o := &UsageObserver{p: p}
	if d := p.Descriptor(); d != nil {
		o.codec, o.dec = d.codec, d.codec.NewStreamDecoder(p)
	}
	return o
}

// Observe appends to out the canonical events of one upstream SSE event
// when it may report usage, a stop reason or an error, and returns out
// unchanged otherwise. Of the events appended, only EventStart, EventUsage
// and EventStop are meaningful: the decoder does not see the content.
func (o *UsageObserver) Observe(out []Event, name, data []byte, bare bool) []Event {
	if o.dec == nil || !bare && !o.codec.ReportsUsage(o.p, jsonx.BytesToString(name), jsonx.BytesToString(data)) {
		return out
	}
	return o.dec.Decode(out, name, data, bare)
}

// Close appends the events the stream decoder gives at the end of a
// stream that passed its protocol's checks. For protocols without a
// terminal event (Gemini) the stop reason comes only here. The observer
// saw only some events, so only EventStop is meaningful: an error among
// them says that the events it skipped were missing.
func (o *UsageObserver) Close(out []Event) []Event {
	if o.dec == nil {
		return out
	}
	return o.dec.Close(out, nil)
}
