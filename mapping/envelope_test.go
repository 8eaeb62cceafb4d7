package mapping

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	tests := []Continuation{
		{Origin: FamilyAnthropic, Signature: "EqQBCkgIARABGAIiQL2"},
		{Origin: FamilyAnthropic, Redacted: true, Signature: strings.Repeat("xyz", 1000)},
		{Origin: FamilyOpenAI, ItemID: "rs_0123456789abcdef", Signature: "gAAAAABo=="},
		{Origin: FamilyGemini, Signature: "CiQB0e2Kb+/=\n\x00binary"},
		{Origin: FamilyOpenAI, ItemID: strings.Repeat("i", 255), Signature: "s"},
		{Origin: FamilyAnthropic, Text: "Let me think.\n\nStep 1 [[x]]", Signature: "sig"},
	}
	for _, c := range tests {
		tok := string(AppendEnvelope(nil, c))
		if !IsEnvelope(tok) {
			t.Fatalf("token %q lacks the prefix", tok)
		}
		if strings.ContainsAny(tok, " \n\"\\[]") {
			t.Errorf("token %q has characters that need escaping or end a text envelope", tok)
		}
		got, err := ParseContinuation(tok)
		if err != nil || got != c {
			t.Errorf("round trip of %+v: got %+v, %v", c, got, err)
		}
	}
	// An id over 255 bytes cannot be represented and is left out.
	long := Continuation{Origin: FamilyOpenAI, ItemID: strings.Repeat("i", 256), Signature: "s"}
	got, err := ParseContinuation(string(AppendEnvelope(nil, long)))
	if err != nil || got.ItemID != "" || got.Signature != "s" {
		t.Errorf("long id: got %+v, %v", got, err)
	}
}

func TestParseContinuationRejects(t *testing.T) {
	valid := string(AppendEnvelope(nil, Continuation{Origin: FamilyGemini, Signature: "sig"}))
	tests := []struct {
		name, token string
		want        error
	}{
		{"no prefix", "abc", ErrEnvelopeMalformed},
		{"empty payload", EnvelopePrefix, ErrEnvelopeMalformed},
		{"bad base64", EnvelopePrefix + "!!!!", ErrEnvelopeMalformed},
		{"padding", valid + "=", ErrEnvelopeMalformed},
		{"origin none", EnvelopePrefix + "AAAA", ErrEnvelopeMalformed},
		{"origin unknown", EnvelopePrefix + "CQAA", ErrEnvelopeMalformed},
		{"flags unknown", EnvelopePrefix + "AQIA", ErrEnvelopeMalformed},
		{"id past end", EnvelopePrefix + "AQAF", ErrEnvelopeMalformed},
		{"no signature", EnvelopePrefix + "AQAA", ErrEnvelopeMalformed},
		{"text length past end", EnvelopePrefix + "AgIABXh4", ErrEnvelopeMalformed},
		{"text length zero", EnvelopePrefix + "AgIAAHh4", ErrEnvelopeMalformed},
		{"too large", EnvelopePrefix + strings.Repeat("A", MaxEnvelopeSize), ErrEnvelopeTooLarge},
	}
	for _, tt := range tests {
		if _, err := ParseContinuation(tt.token); !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestSplitReasoningText(t *testing.T) {
	a := Continuation{Origin: FamilyAnthropic, Signature: "sigA"}
	b := Continuation{Origin: FamilyAnthropic, Redacted: true, Signature: "dataB"}
	tests := []struct {
		name, text string
		want       []ReasoningSegment
	}{
		{"empty", "", nil},
		{"plain", "just thinking", []ReasoningSegment{{Text: "just thinking"}}},
		{"one signed", "think" + EnvelopeText(a), []ReasoningSegment{{Text: "think", Signed: true, Continuation: a}}},
		{"signed then more", "one" + EnvelopeText(a) + "two" + EnvelopeText(b) + "tail",
			[]ReasoningSegment{{Text: "one", Signed: true, Continuation: a}, {Text: "two", Signed: true, Continuation: b}, {Text: "tail"}}},
		{"redacted only", EnvelopeText(b), []ReasoningSegment{{Signed: true, Continuation: b}}},
		{"trimmed by client", strings.TrimSpace("x" + EnvelopeText(a)), []ReasoningSegment{{Text: "x", Signed: true, Continuation: a}}},
		{"text keeps its own blank lines", "p1\n\np2\n\n" + EnvelopeText(a), []ReasoningSegment{{Text: "p1\n\np2\n\n", Signed: true, Continuation: a}}},
	}
	for _, tt := range tests {
		got, err := SplitReasoningText(nil, tt.text)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s[%d]: got %+v, want %+v", tt.name, i, got[i], tt.want[i])
			}
		}
	}
	for _, bad := range []string{"x[[" + EnvelopePrefix + "AQAA]]", "x[[" + EnvelopePrefix + "not closed", "[[" + EnvelopePrefix + "!!]]"} {
		if _, err := SplitReasoningText(nil, bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestEffortBudgets(t *testing.T) {
	var def EffortBudgets
	for e, want := range map[Effort]int64{EffortUnset: 0, EffortNone: 0, EffortMinimal: 1024, EffortLow: 2048,
		EffortMedium: 8192, EffortHigh: 24576, EffortXHigh: 32768, EffortMax: 63999} {
		if got := def.Budget(e); got != want {
			t.Errorf("Budget(%v) = %d, want %d", e, got, want)
		}
	}
	custom := EffortBudgets{Low: 4000, High: 16000}
	if custom.Budget(EffortLow) != 4000 || custom.Budget(EffortMedium) != 8192 || custom.Budget(EffortHigh) != 16000 {
		t.Errorf("custom budgets not used")
	}
	for budget, want := range map[int64]Effort{-1: EffortUnset, 0: EffortNone, 1: EffortMinimal, 1024: EffortMinimal,
		1025: EffortLow, 2048: EffortLow, 5000: EffortMedium, 10000: EffortHigh, 31999: EffortXHigh, 40000: EffortMax, 1 << 40: EffortMax} {
		if got := def.Effort(budget); got != want {
			t.Errorf("Effort(%d) = %v, want %v", budget, got, want)
		}
	}
	for e := EffortNone; e <= EffortMax; e++ {
		if got, ok := ParseEffort(e.String()); !ok || got != e {
			t.Errorf("ParseEffort(%q) = %v %v", e.String(), got, ok)
		}
	}
	if _, ok := ParseEffort("extreme"); ok {
		t.Error("ParseEffort accepted an unknown effort")
	}
	if Effort(99).String() != "" || Family(99).String() != "unknown" || FamilyGemini.String() != "gemini" {
		t.Error("String of out-of-range values")
	}
}

// FuzzContinuation checks that the envelope decoders never panic, and that
// whatever parses re-encodes to a token that parses to the same value.
func FuzzContinuation(f *testing.F) {
	f.Add(string(AppendEnvelope(nil, Continuation{Origin: FamilyAnthropic, Signature: "sig"})))
	f.Add("x" + EnvelopeText(Continuation{Origin: FamilyOpenAI, ItemID: "rs_1", Signature: "enc"}) + "y")
	f.Add("[[" + EnvelopePrefix + "AQAA]]")
	f.Fuzz(func(t *testing.T, s string) {
		if c, err := ParseContinuation(s); err == nil {
			again, err := ParseContinuation(string(AppendEnvelope(nil, c)))
			if err != nil || again != c {
				t.Fatalf("re-encoding %+v: %+v, %v", c, again, err)
			}
		}
		segs, err := SplitReasoningText(nil, s)
		if err == nil {
			for _, seg := range segs {
				if seg.Signed && seg.Continuation.Signature == "" {
					t.Fatalf("signed segment without signature")
				}
			}
		}
	})
}

func TestToolCallIDEnvelopes(t *testing.T) {
	cs := []Continuation{
		{Origin: FamilyAnthropic, Signature: "sig-1", Text: "I should run it."},
		{Origin: FamilyAnthropic, Redacted: true, Signature: "opaque"},
	}
	id := []byte("toolu_01abc")
	for _, c := range cs {
		id = AppendIDEnvelope(id, c)
	}
	own, tokens := SplitToolCallID(string(id))
	if own != "toolu_01abc" {
		t.Fatalf("own id = %q", own)
	}
	got, err := ParseIDEnvelopes(nil, tokens)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cs) {
		t.Errorf("continuations = %+v, want %+v", got, cs)
	}
	if own, tokens := SplitToolCallID("call_plain~not-ours"); own != "call_plain~not-ours" || tokens != "" {
		t.Errorf("an id without an envelope split into %q, %q", own, tokens)
	}
	if _, err := ParseIDEnvelopes(nil, EnvelopePrefix+"!!"); err == nil {
		t.Error("a damaged token parsed")
	}
	if _, err := ParseIDEnvelopes(nil, string(AppendEnvelope(nil, cs[0]))+"~"+EnvelopePrefix+"AA"); err == nil {
		t.Error("a damaged second token parsed")
	}
}

// EnvelopeText returns c in the text form of Chat reasoning_content, which
// SplitReasoningText reads and llmbridge never writes.
func EnvelopeText(c Continuation) string {
	return "\n\n[[" + string(AppendEnvelope(nil, c)) + "]]\n\n"
}
