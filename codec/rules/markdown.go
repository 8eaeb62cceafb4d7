package rules

import (
	"strconv"
	"strings"
)

// Markdown returns the documentation of the table: for each provider its
// rules, its dialect if it is an OpenAI-compatible server, and a row per
// model rule, each with its sources. docs/models.md is this text, held to
// the table by a test.
func (t *Table) Markdown() string {
	var b strings.Builder
	b.WriteString(markdownIntro)
	for _, name := range t.names {
		p := t.providers[name]
		b.WriteString("\n## " + name + "\n\n")
		if len(p.Protocols) > 0 {
			b.WriteString("Upstream protocols: `" + strings.Join(p.Protocols, "`, `") + "`.\n")
		} else {
			b.WriteString("An OpenAI-compatible server: `upstream openai-chat` with `dialect " + name + "`.\n")
		}
		if d := p.Dialect; d != nil {
			b.WriteString("\nDialect: developer instructions as `" + d.SystemRole + "`; output limit as `" + d.MaxTokensField +
				"`; reasoning in history as `" + d.ReasoningField + "`")
			if d.ReasoningInToolLoop {
				b.WriteString(" (required on the assistant messages of the current tool loop)")
			}
			if !d.StreamOptions {
				b.WriteString("; no `stream_options`")
			}
			if d.ToolCallIDs == "alnum9" {
				b.WriteString("; tool-call ids of 9 letters and digits (other ids are mapped by a hash, the same id to the same value)")
			}
			if d.AssistantAfterTool {
				b.WriteString("; no user message right after a tool message (an assistant message saying the tool results were received is written between them)")
			}
			b.WriteString(". Sources: " + links(d.Sources) + "\n")
		}
		if len(p.Rules) > 0 {
			b.WriteString("\n| rule | what it says | sources |\n|---|---|---|\n")
			for _, r := range p.Rules {
				b.WriteString("| `" + r.ID + "` | " + cell(r.Text) + " | " + links(r.Sources) + " |\n")
			}
		}
		if len(p.Models) > 0 {
			b.WriteString("\n| models | output cap | reasoning | efforts / levels | budget | sampling | other | sources | verified |\n|---|---:|---|---|---|---|---|---|---|\n")
			for i := range p.Models {
				r := &p.Models[i]
				b.WriteString("| `" + strings.Join(r.Models, "`, `") + "` | " + capText(r.MaxOutput) + " | " + orDash(r.Reasoning) +
					" | " + orDash(strings.Join(r.Efforts, ", ")) + " | " + budgetText(r) + " | " + orDash(r.Sampling) + " | " +
					otherText(r) + " | " + links(r.Sources) + " | " + orDash(r.Verified) + " |\n")
			}
		}
	}
	return b.String()
}

const markdownIntro = `# Models: what each upstream model accepts

<!-- Generated from codec/rules/data by (*rules.Table).Markdown; TestModelsDoc holds this file to it. -->

Before a translated request is encoded, llmbridge fits it to what its upstream model accepts, using
this table (` + "`codec/rules/data/*.json`" + `, embedded at build time). Rows are tried in order, first match wins;
` + "`*`" + ` matches any run of characters, and names are matched without routing prefixes (` + "`models/`" + `,
` + "`vendor/`" + `, Bedrock's ` + "`anthropic.`" + ` with its region prefix). A model no row matches is sent as the client
asked, under the provider-wide rules only. Operators add or override rows with ` + "`model_rule`" + ` (see
[configuration.md](configuration.md#model_rule-and-dialect-model-rules)).

Every change is listed in the ` + "`Llmbridge-Adjusted`" + ` response header
(` + "`reasoning_effort=high (xhigh not accepted by gpt-5)`" + `), logged at debug level and counted in
` + "`caddy_llmbridge_adjustments_total{rule}`" + `. Changes are of two classes:

- **adjustments that keep the client's intent** are made under the default ` + "`on_unsupported safe`" + `: a thinking
  budget moved into the model's range; an effort moved to the nearest level the model takes (the largest
  below, else the smallest above; a request to reason never becomes none), across budgets, efforts,
  Gemini thinking levels and Anthropic adaptive thinking; reasoning settings not sent to a model that does not
  reason, or that always reasons; an output limit capped at the model's, with a thinking budget kept below
  it; sampling settings a model fixes removed (it cannot sample otherwise); thinking turned off for an
  Anthropic request that cannot carry it (a forced tool choice, a trailing assistant message, an open tool
  loop without a signed thinking block to continue from).
  Reasoning effort none is sent to an OpenAI model that takes function tools on Chat Completions only without
  reasoning, when the client asked for no reasoning (the model's default effort is what breaks the rule), and
  ` + "`thinking: {type: disabled}`" + ` to a Claude model that thinks unless told not to, wherever thinking must be off.
- **changes to what the model is asked** are refused by ` + "`safe`" + ` with a 400 in the client's format naming the
  rule, and made by ` + "`lenient`" + `: stop sequences removed for a model that takes none; a trailing assistant
  message (prefill) removed for a model that takes none; a forced tool choice removed for a model that always
  thinks; reasoning turned off (effort none) for a client that asked an OpenAI model to reason with function
  tools on Chat Completions, where the model takes them only without reasoning (the refusal names the fix:
  ` + "`upstream openai-responses`" + `, which takes both).
- **requests no form of the upstream protocol carries** are refused under every policy: function tools on Chat
  Completions for a model that takes them only through the Responses API; any request on Chat Completions for a
  model served only by the Responses API (the Codex models: the refusal names ` + "`upstream openai-responses`" + `); a
  request toward Vertex AI for a model not served at the configured ` + "`vertex_location`" + ` (Gemini 4: ` + "`global`" + `,
  ` + "`us`" + ` and ` + "`eu`" + ` only).

A row marked **retired** names the day the provider stopped serving the model. Its requests are still sent (another
server may serve it); from that day, the provider's refusal (a 404, or a 400 saying the model does not exist or was
decommissioned) reaches the client as an error that names the retirement.

` + "`on_unsupported strict`" + ` refuses every request that would need either. Reasoning kinds: ` + "`none`" + ` (not a reasoning
model), ` + "`effort`" + ` (OpenAI-style effort), ` + "`budget`" + ` (thinking token budget), ` + "`budget+adaptive`" + `, ` + "`adaptive`" + ` (Anthropic
adaptive thinking with ` + "`output_config.effort`" + `), ` + "`level`" + ` (Gemini ` + "`thinkingLevel`" + `), ` + "`always`" + ` (reasons, takes no
setting). Sampling: ` + "`exclusive`" + ` (temperature or top_p, not both), ` + "`fixed`" + ` (only the defaults),
` + "`fixed-when-reasoning`" + ` (only the defaults unless the effort, the request's or the model's default, is none).
Each row says when it was last checked against its sources (` + "`verified`" + `).

## How a model without a row is treated

A model is matched against the rows in order; the first row whose glob matches is its row. A model of a family the
table knows whose version is newer than every row of that family (` + "`gemini-5-pro`" + ` after the Gemini 4 rows,
` + "`claude-opus-6`" + ` after Opus 5.5, ` + "`gpt-6.5`" + ` or ` + "`gpt-7`" + ` after GPT-6.1, ` + "`grok-5`" + ` after grok-4.7) is taken to behave
like that family's newest row rather than like a model the table knows nothing of: the name is read as a family
(the words before the version: ` + "`gemini`" + `, ` + "`claude-opus`" + `, ` + "`gpt`" + `, ` + "`qwen`" + `), a version (` + "`3.8`" + `, Claude's ` + "`4-5`" + ` as 4.5; 4.20 comes
before 4.3) and a variant (the word after the version: ` + "`flash`" + `, ` + "`codex`" + `). The row taken is the newest version's row for
the model's variant, else the newest version's row for any variant (` + "`gemini-4*`" + `), else the newest major version's
(` + "`gpt-6*`" + `), else the row the name matches. Its retirement date and price are not taken. The assumption is logged at
info level once per model, with the ` + "`model_rule`" + ` block that pins it (` + "`like gemini-4-argon`" + `), and the first request's
` + "`Llmbridge-Adjusted`" + ` says ` + "`model_rule=like gemini-4-argon (gemini-5-pro has no row; ...)`" + `. Which rule a model takes is found
on its first request and kept for the handler's life (at most 1,024 models). A model whose family has no versioned row
(` + "`acme-9-pro`" + `), or whose version is not newer than its family's rows, takes the row its name matches, or, with none,
is sent as the client asked under the provider-wide rules only. A ` + "`model_rule`" + ` whose glob names the model, or its
version (` + "`gemini-5*`" + `), is the model's row like any other.

A request the table gets wrong costs at most one retry: an upstream's refusal that names a setting or value
the model does not take teaches llmbridge the rule, which it applies to the retry and to later requests
(see [configuration.md](configuration.md#errors-that-teach)).

## Measuring a new model

A model released tomorrow gets its row the same day, measured rather than guessed:

` + "```sh" + `
caddy llmbridge-probe --upstream openai-chat --to api.openai.com --model gpt-5.8 --api_key "$OPENAI_API_KEY"
` + "```" + `

The flags are the ` + "`llmbridge`" + ` directive's settings of the same names (` + "`--dialect`" + `, ` + "`--vertex_project`" + `,
` + "`--vertex_location`" + `, ` + "`--google_credentials`" + `, ` + "`--google_token`" + `, ` + "`--azure_api_version`" + `, ` + "`--aws_region`" + `,
` + "`--aws_profile`" + `, ` + "`--aws_host`" + `); ` + "`--to`" + ` is the upstream's address. The probe sends, through the same handler the
directive runs (credentials, paths, signing) with the model's rules turned off, a small set of minimal
requests, at most 16 output tokens each, each testing one rule: temperature and top_p alone and together,
temperature at effort none and at an effort above none, each reasoning effort (or Anthropic adaptive
thinking with each ` + "`output_config.effort`" + `, or each Gemini thinking level and a range of thinking budgets),
function tools with and without an effort on Chat Completions, stop sequences, presence and frequency
penalties, a trailing assistant message, ` + "`thinking: {type: disabled}`" + `, a forced tool choice, an output
limit of 100,000,000 (whose refusal names the model's cap), toward Gemini a tool turn whose function call carries
no thought signature (Gemini 3 and later refuse it: ` + "`signed_calls`" + `), and toward a dialect the developer role, a user
message right after a tool message and a forced tool choice (a model that refuses it while thinking, as DeepSeek
V4 does, is turned off with ` + "`thinking: {type: disabled}`" + `: ` + "`thinking_off disabled`" + `). Gemini's levels include ` + "`xhigh`" + `,
and a model that takes levels but refuses every budget is reported as taking levels only (a budget is then sent as
its nearest level). A model OpenAI serves only by the Responses API is recognized by the Chat baseline's refusal
("This is not a chat model"): the probe stops there and reports ` + "`responses_only`" + `. It prints each probe as accepted or refused (with the provider's
words), the ` + "`model_rule`" + ` block the results imply, findings a rule cannot hold (a dialect setting the server
needs), and the requests and tokens it spent (about 20 requests and a few hundred tokens). Thinking with a
budget is not probed (it needs more than 1,024 output tokens). Add the block to the directive, or send it
as a new row of ` + "`codec/rules/data`" + ` with the report as its source.
`

func links(srcs []string) string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = "[" + strconv.Itoa(i+1) + "](" + s + ")"
	}
	return strings.Join(out, " ")
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func capText(n int64) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

func budgetText(r *Rule) string {
	if r.BudgetMin == 0 && r.BudgetMax == 0 {
		return "-"
	}
	return strconv.FormatInt(r.BudgetMin, 10) + ".." + strconv.FormatInt(r.BudgetMax, 10)
}

func otherText(r *Rule) string {
	var parts []string
	if r.DefaultEffort != "" {
		parts = append(parts, "default effort "+r.DefaultEffort)
	}
	if r.EffortOn != "" {
		parts = append(parts, "efforts above none sent as `"+r.EffortOn+"`")
	}
	switch r.ChatTools {
	case ChatToolsEffortNone:
		parts = append(parts, "function tools on Chat only with effort none")
	case ChatToolsResponses:
		parts = append(parts, "function tools only on Responses")
	}
	if r.ResponsesOnly {
		parts = append(parts, "Responses API only")
	}
	if len(r.VertexLocations) > 0 {
		parts = append(parts, "on Vertex AI only at "+strings.Join(r.VertexLocations, ", "))
	}
	if r.Retired != "" {
		parts = append(parts, "**retired "+r.Retired+"**")
	}
	if r.ThinkingOff == ThinkingOffDisabled {
		parts = append(parts, "thinks unless thinking is disabled")
	}
	if r.AlwaysThinks {
		parts = append(parts, "thinking cannot be turned off")
	}
	if r.NoPrefill {
		parts = append(parts, "no prefill")
	}
	if r.SignedCalls {
		parts = append(parts, "signed function calls")
	}
	if len(r.Rejects) > 0 {
		parts = append(parts, "rejects "+strings.Join(r.Rejects, ", "))
	}
	if r.CacheMinTokens != 0 {
		parts = append(parts, "caches prompts of "+strconv.FormatInt(r.CacheMinTokens, 10)+" tokens and more")
	}
	if len(r.CacheFiveMinutesOnlyOn) > 0 {
		parts = append(parts, "cache lifetime five minutes only on "+strings.Join(r.CacheFiveMinutesOnlyOn, ", "))
	}
	if r.Note != "" {
		parts = append(parts, cell(r.Note))
	}
	return orDash(strings.Join(parts, "; "))
}
