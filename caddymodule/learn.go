package caddymodule

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/fit"
	"github.com/llmbridge/llmbridge/caddymodule/fleet"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// Errors that teach: when the upstream refuses a request (translated, or
// passed through, whose body is then edited in place) with a 400 or 422 whose error names a setting or value the model does not take
// (rules.Learn knows each provider's grammar), and the fix is an
// adjustment the policy makes (rules.ClassAdjust under safe; also
// rules.ClassChange under lenient), the request is fitted again with the
// lesson and sent once more, before anything of the refusal reached the
// client. The retry is reported in Llmbridge-Adjusted ("...; learned from
// the provider's 400"); when it succeeds, the lesson is kept for the
// model (at most maxLearned models per provider), so that later requests
// are fitted without a retry, logged with the model_rule block that makes
// it permanent, and counted in learned_rules_total. A lesson that no form
// of the request survives (a model served only by the Responses API,
// refused on Chat Completions) is kept at once, and the client gets
// llmbridge's refusal naming the fix instead of the provider's words.
// Lessons are facts about a provider's model, not about one handler: they
// are kept per provider for the life of the process, so that the handlers
// a configuration reload provisions keep what the old ones learned.
// on_unsupported strict never retries: the refusal goes to the client in
// its protocol, as does a refusal that names nothing known, or whose fix
// the policy does not make, or that the retry does not cure.

// learnedTotal counts the lessons kept, by what was learned.
var learnedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "caddy", Subsystem: "llmbridge", Name: "learned_rules_total",
	Help: "Model rules learned from an upstream's refusal of a request and confirmed by its retry, by what was learned.",
}, []string{"rule"})

// provisionLearning registers learned_rules_total in the configuration's
// registry.
func provisionLearning(ctx caddy.Context) error {
	reg := ctx.GetMetricsRegistry()
	if reg == nil {
		return nil
	}
	if err := reg.Register(learnedTotal); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return err
		}
	}
	return nil
}

// teaching is what a translated request's retry needs of its first
// attempt.
type teaching struct {
	at       attempt
	model    string
	target   codec.Target
	adjusted []rules.Adjustment
	// body is the first attempt's body, whose anthropic_beta (where
	// bodyOnlyBetas moved values out of the header) the retry keeps.
	body    []byte
	dropped int // len(req.Dropped) before the first encoding
	lesson  rules.Lesson
	learned *policy.Lesson
	status  int    // the refusal's status
	reason  string // the refusal's message
}

// startTeaching notes, before next is first called, what a retry of a
// request would need (body is the body sent); under strict, only the
// model, for explainRetired (it never retries).
func (h *Handler) startTeaching(w http.ResponseWriter, model string, target codec.Target, adjusted []rules.Adjustment, body []byte, dropped int) teaching {
	if h.fitter.Policy == policy.Strict {
		return teaching{model: model}
	}
	return teaching{at: newAttempt(w), model: model, target: target, adjusted: adjusted,
		body: body, dropped: dropped}
}

// release ends the teaching: the attempt's header copy goes back to its
// pool, and nothing else of the request is kept (the teaching's body and
// model point into buffers that go back to theirs). Releasing twice is
// harmless: a stream releases the first writer's teaching as it begins.
func (t *teaching) release() {
	t.at.release()
	*t = teaching{}
}

// StreamOpened releases the teaching when the first writer's answer turns
// out to be a stream, which nothing retries.
func (t *teaching) StreamOpened() { t.release() }

// lesson reads a refusal (status, hdr, body) of a request to t's model
// from upstream for what it teaches: the model's rule with the lesson
// applied, the lesson's record for learnedOutcome, and the refusal's
// text. It reports false under strict, for a status that is not a 400 or
// 422, and for a refusal that names nothing known.
func (h *Handler) lesson(t *teaching, upstream codec.Protocol, status int, hdr http.Header, body []byte) (*rules.Rule, bool) {
	if t.at.hdr == nil || status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return nil, false
	}
	e := writers.DecodeUpstreamError(upstream, status, hdr, body)
	rule, lesson, lr, ok := h.fitter.Learn(t.model, status, e.Message)
	if !ok {
		return nil, false
	}
	t.lesson, t.learned, t.status, t.reason = lesson, lr, status, e.Message
	return rule, true
}

// refuseLearned keeps a lesson no form of the request survives (refusing
// is the adjustment that says so) and writes llmbridge's refusal, naming
// the fix, over body, the provider's, in the upstream's protocol: later
// requests to the model are refused before they are sent.
func (h *Handler) refuseLearned(upstream codec.Protocol, body *[]byte, refusing *rules.Adjustment, t *teaching) {
	h.keepLesson(t)
	*body = codec.AppendError((*body)[:0], upstream, h.fitter.RefusalError(t.model, refusing))
}

// resend sets out as the request's body for the retry, signed where the
// upstream signs bodies, rewinds the attempt and reports the fix in
// Llmbridge-Adjusted after the first attempt's adjustments.
func (h *Handler) resend(r *http.Request, out []byte, adj []rules.Adjustment, x *observe.Exchange, t *teaching) bool {
	setBody(r, out)
	if cerr := h.signUpstream(r, x, out); cerr != nil {
		return false
	}
	t.at.rewind()
	texts := make([]string, 0, len(t.adjusted)+len(adj))
	for i := range t.adjusted {
		texts = append(texts, t.adjusted[i].String())
	}
	for i := range adj {
		a := adj[i]
		a.Why += "; learned from the provider's " + strconv.Itoa(t.status)
		texts = append(texts, a.String())
		h.metrics.RecordAdjusted(adj[i].Rule)
	}
	t.at.w.Header().Set("Llmbridge-Adjusted", observe.HeaderList(texts))
	x.UpstreamStart = time.Time{}
	h.logger.Debug("retrying with a fix the upstream's refusal teaches", zap.String("upstream_model", t.model),
		zap.String("provider_error", t.reason), zap.Strings("adjustments", texts))
	return true
}

// learnRetry looks at the answer tw holds: when it is a refusal that
// teaches a fix the policy makes, it refits and re-encodes req, sets the
// new body, rewinds the attempt and returns the writer for a second call
// of next; otherwise nil, and tw's answer goes to the client.
func (h *Handler) learnRetry(r *http.Request, tw *writers.Translating, nextErr error, t *teaching) *writers.Translating {
	status, hdr, body, held := tw.Held(nextErr)
	if !held {
		return nil
	}
	upstream := tw.Exchange.Upstream
	h.explainRetired(upstream, t.model, status, hdr, body)
	rule, ok := h.lesson(t, upstream, status, hdr, *body)
	if !ok {
		return nil
	}
	req := tw.Req
	adj, target, refusing, ok := h.fitter.Refit(req, rule, upstream, t.model, t.lesson, t.target.Dialect)
	if refusing != nil {
		h.refuseLearned(upstream, body, refusing, t)
	}
	if !ok {
		return nil
	}
	req.Dropped = req.Dropped[:t.dropped]
	out, cerr := h.fitter.EncodeRequest(nil, upstream, req, codec.EncodeOptions{Model: t.model, DefaultMaxTokens: h.DefaultMaxTokens, Target: target, Cache: h.cachePolicyFor(tw.Client)}, t.dropped)
	if cerr != nil {
		return nil
	}
	if betas := gjson.GetBytes(t.body, "anthropic_beta"); betas.IsArray() {
		var err error
		if out, err = sjson.SetRawBytes(out, "anthropic_beta", []byte(betas.Raw)); err != nil {
			return nil
		}
	}
	if !h.resend(r, out, adj, tw.Exchange, t) {
		return nil
	}
	return tw.Retry()
}

// learnRetryPassthrough is learnRetry for a passthrough pair: the refused
// body (in the upstream's protocol) is decoded, fitted with the lesson and
// edited in place where the fix changes it, every other byte kept.
func (h *Handler) learnRetryPassthrough(r *http.Request, pw *writers.Passthrough, x *observe.Exchange, nextErr error, t *teaching) *writers.Passthrough {
	status, hdr, held, ok := pw.Held(nextErr)
	if !ok {
		return nil
	}
	upstream := x.Upstream
	h.explainRetired(upstream, t.model, status, hdr, held)
	rule, ok := h.lesson(t, upstream, status, hdr, *held)
	if !ok {
		return nil
	}
	body, edited := t.body, false
	if t.learned.AdaptiveForBetweenTools {
		body, edited = fit.AdaptiveForBetweenTools(body)
	}
	req := new(codec.Request)
	if err := codec.DecodeRequest(upstream, body, req); err != nil {
		return nil
	}
	adj, target, refusing, ok := h.fitter.Refit(req, rule, upstream, t.model, t.lesson, t.target.Dialect)
	if refusing != nil {
		h.refuseLearned(upstream, held, refusing, t)
	}
	if edited && (ok || len(adj) == 0 && refusing == nil) {
		// The body's edit, alone or with what Fit changed.
		adj, ok = append(adj, rules.Adjustment{Rule: rules.LessonBetweenTools, Param: "thinking.type", Value: "adaptive",
			Why: "thinking.type between_tools is not accepted by " + t.model}), true
	}
	if !ok {
		return nil
	}
	params := make([]string, len(adj))
	for i := range adj {
		params[i] = adj[i].Param
	}
	out, err := codec.FitBody(upstream, body, req, params, target)
	if err != nil || !h.resend(r, out, adj, x, t) {
		return nil
	}
	return pw.Retry(t.at.w)
}

// learnedOutcome keeps the lesson of a retry the upstream accepted with
// status.
func (h *Handler) learnedOutcome(status int, t *teaching) {
	if t.learned == nil || status < 200 || status >= 300 {
		return
	}
	h.keepLesson(t)
}

// keepLesson keeps t's lesson for its model, counts and logs it, and
// tells the fleet.
func (h *Handler) keepLesson(t *teaching) {
	h.fitter.Lessons.Store(t.model, t.learned)
	fleet.Learned(h.store, h.provider, t.model, t.status, t.reason)
	learnedTotal.WithLabelValues(t.lesson.ID).Inc()
	h.logger.Info("learned a model rule from the upstream's refusal; add this model_rule to keep it",
		zap.String("upstream_model", t.model), zap.String("learned", t.lesson.ID),
		zap.String("model_rule", policy.RuleBlock([]string{t.model}, t.learned.Like, &t.learned.Delta)))
}

// explainRetired rewrites body, the upstream's refusal (status) of a
// request for model, when the table marks the model retired by now and the
// refusal is the provider's "no such model" (a 404 or 410, or a 400 saying
// the model does not exist or was decommissioned): the client gets an
// error naming the retirement, written in the upstream's protocol so that
// the writer translates it as it would the provider's.
func (h *Handler) explainRetired(upstream codec.Protocol, model string, status int, hdr http.Header, body *[]byte) {
	if body == nil || model == "" || status != http.StatusNotFound && status != http.StatusGone && status != http.StatusBadRequest {
		return
	}
	r := h.fitter.RuleFor(model)
	if r == nil || r.Retired == "" || !r.RetiredAt(time.Now()) {
		return
	}
	if status == http.StatusBadRequest {
		msg := strings.ToLower(writers.DecodeUpstreamError(upstream, status, hdr, *body).Message)
		if !strings.Contains(msg, "decommissioned") && !strings.Contains(msg, "does not exist") && !strings.Contains(msg, "not found") {
			return
		}
	}
	e := &codec.Error{Status: status, Kind: mapping.KindForStatus(status), Param: "model",
		Message: "model " + model + " was retired by " + r.Provider + " on " + r.Retired + " and is no longer served (rule " +
			r.Provider + ".model.retired); choose a current model"}
	*body = codec.AppendError((*body)[:0], upstream, e)
}

// sharedLearner is the handler as the fleet's Learner of its provider's
// lessons from other instances.
type sharedLearner Handler

// LearnShared keeps the lesson another instance kept for model, read
// from the same refusal.
func (sl *sharedLearner) LearnShared(model string, status int, message string) {
	h := (*Handler)(sl)
	if _, _, lr, ok := h.fitter.Learn(model, status, message); ok {
		h.fitter.Lessons.Store(model, lr)
		h.logger.Info("kept a model rule another instance learned", zap.String("upstream_model", model),
			zap.String("model_rule", policy.RuleBlock([]string{model}, lr.Like, &lr.Delta)))
	}
}

// Interface guards
var _ fleet.Learner = (*sharedLearner)(nil)
