package policy

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// ParseModelRule parses a model_rule block:
//
//	model_rule <glob>... {
//		like <model>          # start from the rule of a known model
//		provider <name>       # default: the upstream's provider
//		max_output <n>
//		reasoning none|effort|budget|budget+adaptive|adaptive|level|always
//		efforts <effort>...
//		budget <min> <max>
//		always_thinks
//		sampling free|exclusive|fixed|fixed-when-reasoning
//		no_prefill
//		signed_calls
//		responses_only        # served by the Responses API only
//		retired <YYYY-MM-DD>
//		vertex_locations <location>...
//		rejects stop|presence_penalty|frequency_penalty...
//		default_effort <effort>
//		chat_tools effort-none|responses
//		thinking_off omit|disabled
//		effort_on <value>
//		cache_min_tokens <n>
//		cache_5m_only_on <protocol>...
//		source <url>...
//		verified <YYYY-MM-DD>
//		price input <usd> output <usd> [cache_read <usd>] [cache_write <usd>] source <url> date <yyyy-mm-dd>
//	}
func ParseModelRule(d *caddyfile.Dispenser) (rules.Rule, error) {
	var r rules.Rule
	r.Models = d.RemainingArgs()
	if len(r.Models) == 0 {
		return r, d.Errf("model_rule needs at least one model glob")
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		args := d.RemainingArgs()
		one := func() (string, error) {
			if len(args) != 1 {
				return "", d.Errf("model_rule %s takes one argument", name)
			}
			return args[0], nil
		}
		flag := func() error {
			if len(args) != 0 {
				return d.Errf("model_rule %s takes no argument", name)
			}
			return nil
		}
		var err error
		switch name {
		case "like":
			r.Like, err = one()
		case "provider":
			r.Provider, err = one()
		case "max_output":
			var s string
			if s, err = one(); err == nil {
				if r.MaxOutput, err = strconv.ParseInt(s, 10, 64); err != nil || r.MaxOutput <= 0 {
					err = d.Errf("model_rule max_output: want a positive integer, got %q", s)
				}
			}
		case "reasoning":
			r.Reasoning, err = one()
		case "efforts":
			r.Efforts = args
		case "budget":
			if len(args) != 2 {
				return r, d.Errf("model_rule budget takes two arguments: <min> <max>")
			}
			lo, err1 := strconv.ParseInt(args[0], 10, 64)
			hi, err2 := strconv.ParseInt(args[1], 10, 64)
			if err1 != nil || err2 != nil {
				return r, d.Errf("model_rule budget: want two integers, got %s", strings.Join(args, " "))
			}
			r.BudgetMin, r.BudgetMax = lo, hi
		case "always_thinks":
			err, r.AlwaysThinks = flag(), true
		case "sampling":
			if r.Sampling, err = one(); r.Sampling == "free" {
				r.Sampling = rules.SamplingFree
			}
		case "no_prefill":
			err, r.NoPrefill = flag(), true
		case "signed_calls":
			err, r.SignedCalls = flag(), true
		case "responses_only":
			err, r.ResponsesOnly = flag(), true
		case "retired":
			r.Retired, err = one()
		case "vertex_locations":
			if len(args) == 0 {
				return r, d.Errf("model_rule vertex_locations needs at least one location")
			}
			r.VertexLocations = args
		case "rejects":
			r.Rejects = args
		case "default_effort":
			r.DefaultEffort, err = one()
		case "chat_tools":
			r.ChatTools, err = one()
		case "thinking_off":
			r.ThinkingOff, err = one()
		case "effort_on":
			r.EffortOn, err = one()
		case "cache_min_tokens":
			var s string
			if s, err = one(); err == nil {
				if r.CacheMinTokens, err = strconv.ParseInt(s, 10, 64); err != nil || r.CacheMinTokens <= 0 {
					err = d.Errf("model_rule cache_min_tokens: want a positive integer, got %q", s)
				}
			}
		case "cache_5m_only_on":
			for _, p := range args {
				if _, perr := codec.ParseProtocol(p); perr != nil {
					return r, d.Errf("model_rule cache_5m_only_on: %v", perr)
				}
			}
			r.CacheFiveMinutesOnlyOn = args
		case "verified":
			r.Verified, err = one()
		case "source":
			r.Sources = append(r.Sources, args...)
		case "price":
			r.Price, err = parsePrice(d, args)
		default:
			return r, d.Errf("unknown model_rule setting %q", name)
		}
		if err != nil {
			return r, err
		}
	}
	return r, nil
}

// Rows returns a copy of the configured rows in which a row
// without a provider names provider, the upstream's.
func Rows(configured []rules.Rule, provider string) []rules.Rule {
	rows := make([]rules.Rule, len(configured))
	copy(rows, configured)
	for i := range rows {
		if rows[i].Provider == "" {
			rows[i].Provider = provider
		}
	}
	return rows
}

// parsePrice parses the arguments of a model rule's price: figures in US
// dollars per million tokens by name, the price list's URL and the day it
// was read.
func parsePrice(d *caddyfile.Dispenser, args []string) (*rules.Price, error) {
	if len(args)%2 != 0 {
		return nil, d.Errf("model_rule price takes pairs: input <usd> output <usd> [cache_read <usd>] [cache_write <usd>] source <url> date <yyyy-mm-dd>")
	}
	p := new(rules.Price)
	var haveIn, haveOut bool
	for i := 0; i < len(args); i += 2 {
		key, val := args[i], args[i+1]
		var f *float64
		switch key {
		case "input":
			f, haveIn = &p.Input, true
		case "output":
			f, haveOut = &p.Output, true
		case "cache_read":
			f = &p.CacheRead
		case "cache_write":
			f = &p.CacheWrite
		case "source":
			p.Source = val
			continue
		case "date":
			p.Date = val
			continue
		default:
			return nil, d.Errf("model_rule price: unknown figure %q (want input, output, cache_read, cache_write, source, date)", key)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, d.Errf("model_rule price %s: want US dollars per million tokens, got %q", key, val)
		}
		*f = v
	}
	if !haveIn || !haveOut || p.Source == "" || p.Date == "" {
		return nil, d.Errf("model_rule price needs input, output, source and date")
	}
	return p, nil
}

// RuleBlock writes the Caddyfile model_rule block that sets r's
// non-zero fields for models, starting from the table's rule of like
// when like is not "" (ParseModelRule reads it).
func RuleBlock(models []string, like string, r *rules.Rule) string {
	var b strings.Builder
	b.WriteString("model_rule " + strings.Join(models, " ") + " {\n")
	line := func(s string) { b.WriteString("\t" + s + "\n") }
	if like != "" {
		line("like " + like)
	}
	if r.Provider != "" {
		line("provider " + r.Provider)
	}
	if r.MaxOutput > 0 {
		line("max_output " + strconv.FormatInt(r.MaxOutput, 10))
	}
	if r.Reasoning != "" {
		line("reasoning " + r.Reasoning)
	}
	if len(r.Efforts) > 0 {
		line("efforts " + strings.Join(r.Efforts, " "))
	}
	if r.DefaultEffort != "" {
		line("default_effort " + r.DefaultEffort)
	}
	if r.BudgetMax > 0 {
		line("budget " + strconv.FormatInt(r.BudgetMin, 10) + " " + strconv.FormatInt(r.BudgetMax, 10))
	}
	if r.AlwaysThinks {
		line("always_thinks")
	}
	if r.Sampling != "" {
		line("sampling " + r.Sampling)
	}
	if r.NoPrefill {
		line("no_prefill")
	}
	if r.SignedCalls {
		line("signed_calls")
	}
	if r.ResponsesOnly {
		line("responses_only")
	}
	if r.Retired != "" {
		line("retired " + r.Retired)
	}
	if len(r.VertexLocations) > 0 {
		line("vertex_locations " + strings.Join(r.VertexLocations, " "))
	}
	if len(r.Rejects) > 0 {
		line("rejects " + strings.Join(r.Rejects, " "))
	}
	if r.ChatTools != "" {
		line("chat_tools " + r.ChatTools)
	}
	if r.ThinkingOff != "" {
		line("thinking_off " + r.ThinkingOff)
	}
	if r.EffortOn != "" {
		line("effort_on " + r.EffortOn)
	}
	if r.CacheMinTokens > 0 {
		line("cache_min_tokens " + strconv.FormatInt(r.CacheMinTokens, 10))
	}
	if len(r.CacheFiveMinutesOnlyOn) > 0 {
		line("cache_5m_only_on " + strings.Join(r.CacheFiveMinutesOnlyOn, " "))
	}
	for _, s := range r.Sources {
		line("source " + strconv.Quote(s))
	}
	if r.Verified != "" {
		line("verified " + r.Verified)
	}
	b.WriteString("}")
	return b.String()
}
