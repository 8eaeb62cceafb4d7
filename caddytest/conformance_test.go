package caddytest

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// conformanceOut is where TestConformance also writes its pass-rate table.
var conformanceOut = flag.String("conformance.out", "", "also write TestConformance's pass-rate table (markdown) to this file")

// conformanceException is a recording, edited or not, that is known to
// fail for some clients, and why. Every reason is also in
// docs/compatibility.md.
type conformanceException struct {
	// recording is the recording's id.
	recording string
	// crossFamily limits the exception to clients of another wire family
	// than the recording's (passthrough clients must still pass).
	crossFamily bool
	// reason says why the recording cannot pass.
	reason string
}

// conformanceExceptions are the recordings that are known not to pass.
// Every other run must pass, edited recordings included: an unknown
// failure fails TestConformance. An exception that passes, or that names
// no recording, is an error too, so that the list stays exact.
var conformanceExceptions = []conformanceException{
	// None: the last one, Anthropic's hosted web search stream
	// (anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream),
	// translates as a hosted tool.
}

// exceptionFor returns the exception that covers recording id replayed to
// client cp from upstream up, if any.
func exceptionFor(id string, cp, up proto) (conformanceException, bool) {
	for _, ex := range conformanceExceptions {
		if ex.recording == id && (!ex.crossFamily || cp.family() != up.family()) {
			return ex, true
		}
	}
	return conformanceException{}, false
}

// conformanceCell counts the runs of one protocol pair.
type conformanceCell struct {
	pass, total             int
	editedPass, editedTotal int
	excepted                int
}

// add counts one run.
func (c *conformanceCell) add(edited, passed, excepted bool) {
	if excepted && !passed {
		c.excepted++
	}
	switch {
	case edited:
		c.editedTotal++
		if passed {
			c.editedPass++
		}
	default:
		c.total++
		if passed {
			c.pass++
		}
	}
}

// plus returns the sum of two cells.
func (c conformanceCell) plus(o conformanceCell) conformanceCell {
	return conformanceCell{c.pass + o.pass, c.total + o.total, c.editedPass + o.editedPass, c.editedTotal + o.editedTotal, c.excepted + o.excepted}
}

// String renders a cell as "pass/total", with the edited recordings after
// a plus sign and excepted failures in brackets.
func (c conformanceCell) String() string {
	s := fmt.Sprintf("%d/%d", c.pass, c.total)
	if c.excepted > 0 {
		s += fmt.Sprintf(" (%d exc.)", c.excepted)
	}
	if c.editedTotal > 0 {
		s += fmt.Sprintf(" + edited %d/%d", c.editedPass, c.editedTotal)
	}
	return s
}

// TestConformance replays every recorded exchange in ../shared/recordings
// (skipped when absent), streamed and not, from a mock upstream of the
// recording's protocol to a client of every protocol (the recording's own
// protocol and its family are passthroughs), and reports a pass rate per
// protocol pair.
//
// A run passes when the client's answer, read with its own protocol's
// codec, is what the recording says: for a success, a 2xx whose JSON body
// or event stream is valid in the client's protocol (a stream must be a
// well-formed event sequence that ends with the protocol's end of a
// complete answer) and carries the recorded text, refusal, tool calls
// (names, ids, arguments compared as JSON) and stop reason (in the
// client's vocabulary); for a stream that ends in an error, the client's
// in-stream error after no more than the recorded text; for an error
// response, the recorded status (529 as 503 for clients that are not
// Anthropic's) with an error body in the client's format carrying the
// provider's message. What is expected is read from the recording by the
// test itself, not by llmbridge's codecs.
//
// Recordings marked edited count apart in the table, but fail the test
// like any other: every failure is an error unless conformanceExceptions
// lists the recording, so that a regression, or an edited recording that
// no longer passes, cannot go unnoticed.
func TestConformance(t *testing.T) {
	env := setup(t)
	cells := map[[2]proto]*conformanceCell{}
	for _, up := range allProtocols {
		for _, cp := range allProtocols {
			cells[[2]proto{up, cp}] = &conformanceCell{}
		}
	}
	var exchanges int
	var failures []string
	seen := map[string]bool{}
	for _, up := range allProtocols {
		for _, r := range loadRecordings(t, up, "*.json") {
			exchanges++
			seen[r.id] = true
			exp := expectRecording(up, r)
			edited := r.root.Get("edited").Bool()
			for _, cp := range allProtocols {
				name := pairName(cp, up) + "/" + strings.TrimPrefix(r.id, string(up)+"/")
				var problems []string
				t.Run(name, func(t *testing.T) {
					env.mocks.resetAll(t)
					problems = runConformance(t, env, cp, up, r, exp)
					ex, excepted := exceptionFor(r.id, cp, up)
					switch {
					case len(problems) == 0 && excepted:
						t.Errorf("%s passes but is listed as an exception (%s); remove the exception", name, ex.reason)
					case len(problems) == 0:
					case excepted:
						t.Logf("%s fails as excepted (%s): %s", name, ex.reason, strings.Join(problems, "; "))
					case edited:
						t.Errorf("%s (edited recording): %s", name, strings.Join(problems, "; "))
					default:
						t.Errorf("%s: %s", name, strings.Join(problems, "; "))
					}
				})
				_, excepted := exceptionFor(r.id, cp, up)
				cells[[2]proto{up, cp}].add(edited, len(problems) == 0, excepted)
				if len(problems) > 0 {
					tag := ""
					switch {
					case edited:
						tag = " [edited]"
					case excepted:
						tag = " [exception]"
					}
					failures = append(failures, name+tag+": "+strings.Join(problems, "; "))
				}
			}
		}
	}
	for _, ex := range conformanceExceptions {
		if !seen[ex.recording] {
			t.Errorf("conformanceExceptions lists %s, which is not a recording; remove the exception", ex.recording)
		}
	}
	table := conformanceTable(cells, exchanges)
	t.Log("\n" + table)
	if len(failures) > 0 {
		t.Log("failing runs:\n  " + strings.Join(failures, "\n  "))
	}
	if *conformanceOut != "" {
		out := table
		if len(failures) > 0 {
			out += "\nFailing runs:\n\n- " + strings.Join(failures, "\n- ") + "\n"
		}
		if err := os.WriteFile(*conformanceOut, []byte(out), 0o644); err != nil {
			t.Errorf("writing %s: %v", *conformanceOut, err)
		}
	}
}

// runConformance replays recording r from the mock of upstream up to a
// client of protocol cp (streamed when the recorded request was) and
// returns how the client's answer falls short of the recording.
func runConformance(t *testing.T, env *testEnv, cp, up proto, r recording, exp expectation) []string {
	hdr := http.Header{"Content-Type": {r.root.Get("response.headers.content-type").String()}}
	if ra := r.root.Get("response.headers.retry-after"); ra.Exists() {
		hdr.Set("Retry-After", ra.String())
	}
	env.mocks[up].setScenario(scenario{Status: exp.status, Header: hdr, Body: r.root.Get("response.body").String()})
	stream := r.root.Get("stream").Bool()
	var req *http.Request
	if stream {
		req = newClientStreamRequest(t, env.plain[up], cp)
	} else {
		model := cp.defaultModel()
		req = newClientRequest(t, http.MethodPost, env.plain[up], cp, model, minimalBody(cp, model))
	}
	o, body, err := readClientAnswer(rawHTTP, cp, req)
	var problems []string
	if v := env.mocks[up].takeViolations(); len(v) > 0 {
		problems = append(problems, "the upstream rejected the translated request: "+strings.Join(v, "; "))
	}
	if err != nil {
		return append(problems, fmt.Sprintf("reading the answer failed after %d bytes: %v", len(body), err))
	}
	recorded := r.root.Get("response.body").String()
	if cp.family() == up.family() && o.status == exp.status && string(body) == recorded {
		// A passthrough client gets exactly what the provider sent, which
		// is all llmbridge promises; what the client's codec makes of the
		// provider's own bytes is the recording's, not llmbridge's.
		if extra := judgeConformance(cp, exp, stream, o, body); len(extra) > 0 {
			t.Logf("the recorded bytes, passed through unchanged, read as: %s", strings.Join(extra, "; "))
		}
		return problems
	}
	if cp.family() != up.family() && o.trailing != "" {
		problems = append(problems, "an event after the end of the answer: "+o.trailing)
	}
	return append(problems, judgeConformance(cp, exp, stream, o, body)...)
}

// judgeConformance returns how a client's answer o (body as received)
// falls short of the recorded expectation.
func judgeConformance(cp proto, exp expectation, stream bool, o clientOutcome, body []byte) []string {
	if exp.status >= 400 {
		want := exp.status
		if want == 529 && !cp.reads529() {
			want = http.StatusServiceUnavailable
		}
		problems := errorFormatProblems(cp, want, o.status, o.contentType, body)
		if msg := errorBodyMessage(body); exp.errMessage != "" && !strings.Contains(msg, exp.errMessage) {
			problems = append(problems, fmt.Sprintf("error message %q, want the provider's %q", clip(msg), clip(exp.errMessage)))
		}
		return problems
	}
	if o.status < 200 || o.status > 299 {
		return []string{fmt.Sprintf("HTTP %d, want 2xx: %s", o.status, clip(string(body)))}
	}
	wantType := "application/json"
	if stream {
		wantType = clientStreamType(cp)
	}
	if o.contentType != wantType {
		return []string{fmt.Sprintf("Content-Type %q, want %s", o.contentType, wantType)}
	}
	problems := append([]string(nil), o.problems...)
	if exp.failed != "" {
		if o.streamEnd != "error" {
			problems = append(problems, fmt.Sprintf("the stream ended with %q, want the client protocol's in-stream error (the recording fails with %q)", o.streamEnd, clip(exp.failed)))
		}
		if got, all := o.refusal+o.text, exp.refusal+exp.text; !strings.HasPrefix(all, got) {
			problems = append(problems, fmt.Sprintf("text %q before the error is not part of the recorded %q", clip(got), clip(all)))
		}
		if !strings.Contains(o.errMessage, exp.failed) {
			problems = append(problems, fmt.Sprintf("in-stream error %q, want it to carry the provider's %q", clip(o.errMessage), clip(exp.failed)))
		}
		return problems
	}
	if stream && o.streamEnd != "end" {
		what := "without its end of a complete answer"
		if o.streamEnd == "error" {
			what = "with an in-stream error " + fmt.Sprintf("%q", clip(o.errMessage))
		}
		problems = append(problems, "the stream ended "+what)
	}
	return append(problems, compareAnswer(cp, exp, o)...)
}

// errorFormatProblems returns how an error answer differs from an error
// of HTTP status want in client protocol p's format.
func errorFormatProblems(p proto, want, status int, contentType string, body []byte) []string {
	var problems []string
	if status != want {
		problems = append(problems, fmt.Sprintf("HTTP %d, want %d", status, want))
	}
	if contentType != "application/json" {
		problems = append(problems, fmt.Sprintf("Content-Type %q, want application/json", contentType))
	}
	if !gjson.ValidBytes(body) {
		return append(problems, fmt.Sprintf("error body is not JSON: %q", clip(string(body))))
	}
	root := gjson.ParseBytes(body)
	isString := func(path string) bool { return root.Get(path).Type == gjson.String && root.Get(path).Str != "" }
	switch {
	case p.isAWS():
		if !isString("message") || !isString("__type") {
			problems = append(problems, "not an AWS error body: "+clip(string(body)))
		}
	case p.isAnthropic():
		if root.Get("type").Str != "error" || !isString("error.type") || !isString("error.message") {
			problems = append(problems, "not an Anthropic error body: "+clip(string(body)))
		}
	case p.isGoogle():
		if root.Get("error.code").Int() != int64(status) || !isString("error.message") || !isString("error.status") {
			problems = append(problems, "not a Google error body: "+clip(string(body)))
		}
	case p.isInteractions():
		if !interactionsCodeFits(root.Get("error.code").Str, status) || !isString("error.message") {
			problems = append(problems, "not an Interactions error body: "+clip(string(body)))
		}
	default:
		if !isString("error.message") || !isString("error.type") || !root.Get("error.param").Exists() || !root.Get("error.code").Exists() {
			problems = append(problems, "not an OpenAI error body: "+clip(string(body)))
		}
	}
	return problems
}

// errorBodyMessage returns the message of an error body of any protocol.
func errorBodyMessage(body []byte) string {
	if m := gjson.GetBytes(body, "message"); m.Type == gjson.String {
		// An AWS error body.
		return m.Str
	}
	return gjson.GetBytes(body, "error.message").String()
}

// conformanceTable renders the pass rates as a markdown table: one row per
// upstream protocol, one column per client protocol, totals, and a summary
// line.
func conformanceTable(cells map[[2]proto]*conformanceCell, exchanges int) string {
	var b strings.Builder
	b.WriteString("| upstream \\ client |")
	for _, cp := range allProtocols {
		b.WriteString(" " + string(cp) + " |")
	}
	b.WriteString(" all clients |\n|---|")
	for range allProtocols {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	var cols = map[proto]conformanceCell{}
	var all conformanceCell
	for _, up := range allProtocols {
		var row conformanceCell
		b.WriteString("| " + string(up) + " |")
		for _, cp := range allProtocols {
			c := *cells[[2]proto{up, cp}]
			b.WriteString(" " + c.String() + " |")
			row = row.plus(c)
			cols[cp] = cols[cp].plus(c)
		}
		b.WriteString(" " + row.String() + " |\n")
		all = all.plus(row)
	}
	b.WriteString("| all upstreams |")
	for _, cp := range allProtocols {
		b.WriteString(" " + cols[cp].String() + " |")
	}
	b.WriteString(" " + all.String() + " |\n\n")
	pct := func(p, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(p)/float64(n))
	}
	fmt.Fprintf(&b, "%d exchanges x %d clients = %d runs. Non-edited: %d/%d pass (%s). Edited: %d/%d pass (%s). %d failures excepted.\n",
		exchanges, len(allProtocols), all.total+all.editedTotal, all.pass, all.total, pct(all.pass, all.total),
		all.editedPass, all.editedTotal, pct(all.editedPass, all.editedTotal), all.excepted)
	return b.String()
}
