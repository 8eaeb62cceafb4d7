package rules

import (
	"embed"
	"encoding/json"
	"fmt"
	"math/bits"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

//go:embed data/*.json
var dataFS embed.FS

// Table is a compiled set of model rules. It is immutable: With returns a
// new table.
type Table struct {
	providers map[string]*Provider
	names     []string // provider names in file order
	rows      []*Rule  // operator rows first, then built-in rows in order
}

var (
	builtinOnce  sync.Once
	builtinTable *Table
	builtinErr   error
)

// Builtin returns the table of the embedded data files. It panics if they
// do not compile, which the package's tests rule out.
func Builtin() *Table {
	builtinOnce.Do(func() { builtinTable, builtinErr = loadBuiltin() })
	if builtinErr != nil {
		panic("rules: embedded table: " + builtinErr.Error())
	}
	return builtinTable
}

func loadBuiltin() (*Table, error) {
	entries, err := dataFS.ReadDir("data")
	if err != nil {
		return nil, err
	}
	t := &Table{providers: make(map[string]*Provider)}
	for _, e := range entries {
		b, err := dataFS.ReadFile(path.Join("data", e.Name()))
		if err != nil {
			return nil, err
		}
		p := new(Provider)
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(p); err != nil {
			return nil, fmt.Errorf("%s: %v", e.Name(), err)
		}
		if p.Name == "" || t.providers[p.Name] != nil {
			return nil, fmt.Errorf("%s: missing or repeated provider name %q", e.Name(), p.Name)
		}
		t.providers[p.Name] = p
		t.names = append(t.names, p.Name)
		for i := range p.Models {
			r := &p.Models[i]
			if r.Provider == "" {
				r.Provider = p.Name
			}
			if r.Provider != p.Name {
				return nil, fmt.Errorf("%s: model row %v names provider %q", e.Name(), r.Models, r.Provider)
			}
			if len(r.Sources) == 0 {
				return nil, fmt.Errorf("%s: model row %v has no sources", e.Name(), r.Models)
			}
			if _, err := time.Parse(time.DateOnly, r.Verified); err != nil {
				return nil, fmt.Errorf("%s: model row %v: verified %q is not a date (YYYY-MM-DD)", e.Name(), r.Models, r.Verified)
			}
			if err := r.compile(); err != nil {
				return nil, fmt.Errorf("%s: %v", e.Name(), err)
			}
			r.order = len(t.rows)
			t.rows = append(t.rows, r)
		}
		for _, pr := range p.Rules {
			if len(pr.Sources) == 0 {
				return nil, fmt.Errorf("%s: rule %s has no sources", e.Name(), pr.ID)
			}
		}
	}
	return t, nil
}

// With returns a table in which rows come before t's own rows, so that
// they win where both match a model. A row with Like starts from the rule
// t has for that model (in the row's provider) and takes its own non-zero
// fields over it.
func (t *Table) With(rows []Rule) (*Table, error) {
	if len(rows) == 0 {
		return t, nil
	}
	nt := &Table{providers: t.providers, names: t.names}
	for i := range rows {
		r := rows[i] // a copy: the caller's rows stay as configured
		if r.Provider == "" {
			return nil, fmt.Errorf("model rule %v: provider is required", r.Models)
		}
		if len(r.Models) == 0 {
			return nil, fmt.Errorf("model rule for %s: at least one model glob is required", r.Provider)
		}
		if r.Like != "" {
			base := t.Lookup(r.Provider, r.Like)
			if base == nil {
				return nil, fmt.Errorf("model rule %v: like %q: no %s rule matches that model", r.Models, r.Like, r.Provider)
			}
			r = r.Over(base)
		}
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("model rule: %v", err)
		}
		r.order = len(nt.rows)
		nt.rows = append(nt.rows, &r)
	}
	for _, r := range t.rows {
		nt.rows = append(nt.rows, r)
	}
	return nt, nil
}

// Over returns r with every zero field taken from base (flags are set
// in either; sources are r's then base's): a row that is like base, or
// lessons learned after base's (caddymodule's errors that teach).
func (r Rule) Over(base *Rule) Rule {
	out := *base
	out.Provider, out.Models, out.Like = r.Provider, r.Models, r.Like
	if r.MaxOutput != 0 {
		out.MaxOutput = r.MaxOutput
	}
	if r.Reasoning != "" {
		out.Reasoning = r.Reasoning
	}
	if r.Efforts != nil {
		out.Efforts = r.Efforts
	}
	if r.BudgetMin != 0 {
		out.BudgetMin = r.BudgetMin
	}
	if r.BudgetMax != 0 {
		out.BudgetMax = r.BudgetMax
	}
	out.AlwaysThinks = out.AlwaysThinks || r.AlwaysThinks
	if r.Sampling != "" {
		out.Sampling = r.Sampling
	}
	out.NoPrefill = out.NoPrefill || r.NoPrefill
	out.SignedCalls = out.SignedCalls || r.SignedCalls
	out.ResponsesOnly = out.ResponsesOnly || r.ResponsesOnly
	if r.Retired != "" {
		out.Retired = r.Retired
	}
	if r.VertexLocations != nil {
		out.VertexLocations = r.VertexLocations
	}
	if r.Rejects != nil {
		out.Rejects = r.Rejects
	}
	if r.DefaultEffort != "" {
		out.DefaultEffort = r.DefaultEffort
	}
	if r.ChatTools != "" {
		out.ChatTools = r.ChatTools
	}
	if r.ThinkingOff != "" {
		out.ThinkingOff = r.ThinkingOff
	}
	if r.EffortOn != "" {
		out.EffortOn = r.EffortOn
	}
	if r.CacheMinTokens != 0 {
		out.CacheMinTokens = r.CacheMinTokens
	}
	if r.CacheFiveMinutesOnlyOn != nil {
		out.CacheFiveMinutesOnlyOn = r.CacheFiveMinutesOnlyOn
	}
	if r.Verified != "" {
		out.Verified = r.Verified
	}
	out.Sources = append(slices.Clip(r.Sources), base.Sources...)
	if r.Note != "" {
		out.Note = r.Note
	}
	if r.Price != nil {
		out.Price = r.Price
	}
	return out
}

// compile checks r and prepares its globs and sets.
func (r *Rule) compile() error {
	r.globs = make([]glob, 0, len(r.Models))
	for _, m := range r.Models {
		if m == "" || strings.Contains(m, "**") {
			return fmt.Errorf("model glob %q: empty, or two adjacent wildcards", m)
		}
		r.globs = append(r.globs, compileGlob(m))
	}
	switch r.Reasoning {
	case ReasoningUnknown, ReasoningNone, ReasoningEffort, ReasoningBudget, ReasoningBudgetAdaptive,
		ReasoningAdaptive, ReasoningLevel, ReasoningAlways:
	default:
		return fmt.Errorf("%v: unknown reasoning kind %q", r.Models, r.Reasoning)
	}
	switch r.Sampling {
	case SamplingFree, SamplingExclusive, SamplingFixed, SamplingFixedWhenReasoning:
	default:
		return fmt.Errorf("%v: unknown sampling regime %q", r.Models, r.Sampling)
	}
	r.efforts = 0
	for _, name := range r.Efforts {
		e, ok := mapping.ParseEffort(name)
		if !ok {
			return fmt.Errorf("%v: unknown effort %q", r.Models, name)
		}
		r.efforts |= 1 << e
	}
	r.defaultEffort = mapping.EffortUnset
	if r.DefaultEffort != "" {
		e, ok := mapping.ParseEffort(r.DefaultEffort)
		if !ok || !r.efforts.has(e) {
			return fmt.Errorf("%v: default_effort %q is not one of the model's efforts", r.Models, r.DefaultEffort)
		}
		r.defaultEffort = e
	}
	switch r.ChatTools {
	case ChatToolsAny, ChatToolsEffortNone, ChatToolsResponses:
	default:
		return fmt.Errorf("%v: unknown chat_tools %q (want effort-none or responses)", r.Models, r.ChatTools)
	}
	switch r.ThinkingOff {
	case ThinkingOffDefault, ThinkingOffOmit, ThinkingOffDisabled:
	default:
		return fmt.Errorf("%v: unknown thinking_off %q (want omit or disabled)", r.Models, r.ThinkingOff)
	}
	if r.EffortOn != "" && (r.Reasoning != ReasoningEffort || r.efforts&^(1<<mapping.EffortNone) == 0 || bits.OnesCount16(uint16(r.efforts&^(1<<mapping.EffortNone))) != 1) {
		return fmt.Errorf("%v: effort_on needs reasoning effort with none and one other effort", r.Models)
	}
	r.retired = time.Time{}
	if r.Retired != "" {
		t, err := time.Parse(time.DateOnly, r.Retired)
		if err != nil {
			return fmt.Errorf("%v: retired %q is not a date (YYYY-MM-DD)", r.Models, r.Retired)
		}
		r.retired = t
	}
	if r.Verified != "" {
		if _, err := time.Parse(time.DateOnly, r.Verified); err != nil {
			return fmt.Errorf("%v: verified %q is not a date (YYYY-MM-DD)", r.Models, r.Verified)
		}
	}
	if (r.Reasoning == ReasoningEffort || r.Reasoning == ReasoningLevel || r.Reasoning == ReasoningAdaptive) && r.efforts == 0 {
		return fmt.Errorf("%v: reasoning %q needs efforts", r.Models, r.Reasoning)
	}
	if r.BudgetMin < 0 || r.BudgetMax < 0 || r.BudgetMax != 0 && r.BudgetMin > r.BudgetMax {
		return fmt.Errorf("%v: budget range %d..%d", r.Models, r.BudgetMin, r.BudgetMax)
	}
	if r.MaxOutput < 0 {
		return fmt.Errorf("%v: negative max_output", r.Models)
	}
	if r.Price != nil {
		if err := r.Price.check(); err != nil {
			return fmt.Errorf("%v: %v", r.Models, err)
		}
	}
	r.rejects = 0
	for _, name := range r.Rejects {
		s, ok := rejectNames[name]
		if !ok {
			return fmt.Errorf("%v: unknown rejected setting %q (want stop, presence_penalty or frequency_penalty)", r.Models, name)
		}
		r.rejects |= s
	}
	return nil
}

// Lookup returns the first rule of provider whose globs match model, or
// nil when none does (the request is then sent as the client made it).
func (t *Table) Lookup(provider, model string) *Rule {
	model = baseModel(model)
	for _, r := range t.rows {
		if r.Provider != provider {
			continue
		}
		for i := range r.globs {
			if r.globs[i].match(model) {
				return r
			}
		}
	}
	return nil
}

// Rows returns the rows of provider, in the order they are tried.
func (t *Table) Rows(provider string) []*Rule {
	var out []*Rule
	for _, r := range t.rows {
		if r.Provider == provider {
			out = append(out, r)
		}
	}
	return out
}

// Dialect returns the codec dialect of the OpenAI-compatible provider
// called name, nil for openai itself, and an error for a name without a
// dialect.
func (t *Table) Dialect(name string) (*codec.Dialect, error) {
	if name == "" || name == "openai" {
		return nil, nil
	}
	p := t.providers[name]
	if p == nil || p.Dialect == nil {
		return nil, fmt.Errorf("unknown dialect %q (want one of %s)", name, strings.Join(t.DialectNames(), ", "))
	}
	return p.Dialect.Dialect(name), nil
}

// DialectNames lists the dialects, openai first.
func (t *Table) DialectNames() []string {
	names := []string{"openai"}
	for _, n := range t.names {
		if t.providers[n].Dialect != nil {
			names = append(names, n)
		}
	}
	return names
}

// ProviderFor returns the provider whose rules govern an upstream of
// protocol p (its Descriptor's Rules.Provider), with dialect the configured
// dialect of a family whose servers other vendors speak ("" or "openai"
// for the protocol's own provider). It returns dialect for an unregistered
// protocol.
func ProviderFor(p codec.Protocol, dialect string) string {
	d := p.Descriptor()
	if d == nil {
		return dialect
	}
	if f := d.Family.Descriptor(); dialect != "" && f != nil && f.Dialects {
		return dialect
	}
	return d.Rules.Provider
}

// baseModel strips what routes a model name rather than names the model:
// Gemini's "models/" prefix, an aggregator's "vendor/" prefix, and
// Bedrock's "anthropic." with its cross-region prefix ("us.", "eu.",
// "apac.", "global.").
func baseModel(m string) string {
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.Index(m, "anthropic."); i >= 0 && !strings.Contains(m[:i], "-") {
		m = m[i+len("anthropic."):]
	}
	return m
}

// glob is a model-name pattern: literal pieces around '*' wildcards, each
// of which matches any run of characters. Matching is anchored and
// allocation-free.
type glob []string

func compileGlob(pattern string) glob { return strings.Split(pattern, "*") }

func (g glob) match(s string) bool {
	if len(g) == 1 {
		return s == g[0]
	}
	first, last := g[0], g[len(g)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	pos, end := len(first), len(s)-len(last)
	for _, lit := range g[1 : len(g)-1] {
		j := strings.Index(s[pos:end], lit)
		if j < 0 {
			return false
		}
		pos += j + len(lit)
	}
	return true
}

// effortSet is a set of mapping.Effort values.
type effortSet uint16

func (s effortSet) has(e mapping.Effort) bool { return s&(1<<e) != 0 }

// nearest returns the effort of s closest to e: the largest one at most
// e, else the smallest one above it. A request to reason (e above none)
// never becomes none.
func (s effortSet) nearest(e mapping.Effort) mapping.Effort {
	floor := mapping.EffortUnset
	if e > mapping.EffortNone {
		floor = mapping.EffortNone
	}
	for c := e; c > floor; c-- {
		if s.has(c) {
			return c
		}
	}
	for c := e + 1; c <= mapping.EffortMax; c++ {
		if s.has(c) {
			return c
		}
	}
	return e
}

// lowest returns the smallest effort of s above none, or none when s has
// only none.
func (s effortSet) lowest() mapping.Effort {
	for c := mapping.EffortMinimal; c <= mapping.EffortMax; c++ {
		if s.has(c) {
			return c
		}
	}
	return mapping.EffortNone
}

// rejectSet is a set of request settings a model refuses.
type rejectSet uint8

const (
	rejectStop rejectSet = 1 << iota
	rejectPresencePenalty
	rejectFrequencyPenalty
)

var rejectNames = map[string]rejectSet{
	"stop": rejectStop, "presence_penalty": rejectPresencePenalty, "frequency_penalty": rejectFrequencyPenalty,
}
