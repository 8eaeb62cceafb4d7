package policy

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestModelRuleBlock: the block a lesson is logged as reads back, with
// parseModelRule, as the rule it was written from.
func TestModelRuleBlock(t *testing.T) {
	want := rules.Rule{Models: []string{"gpt-7"}, Like: "gpt-5", Provider: "openai", MaxOutput: 64000, Reasoning: rules.ReasoningEffort,
		Efforts: []string{"none", "medium"}, DefaultEffort: "medium", BudgetMin: 1, BudgetMax: 9, AlwaysThinks: true, Sampling: rules.SamplingFixed,
		NoPrefill: true, SignedCalls: true, Rejects: []string{"stop"}, ChatTools: rules.ChatToolsEffortNone, ThinkingOff: rules.ThinkingOffOmit,
		EffortOn: "default", Sources: []string{"learned from the provider's 400 Unsupported parameter: 'stop'"}, Verified: "2026-12-03"}
	block := RuleBlock(want.Models, want.Like, &want)
	d := caddyfile.NewTestDispenser(block)
	d.Next()
	got, err := ParseModelRule(d)
	if err != nil {
		t.Fatalf("%v\n%s", err, block)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n got %+v\nwant %+v\n%s", got, want, block)
	}
}

func TestLearnedRules(t *testing.T) {
	var nilRules *Lessons
	if nilRules.Lookup("m") != nil {
		t.Error("a nil store holds nothing")
	}
	l := new(Lessons)
	if allocs := testing.AllocsPerRun(100, func() { _ = l.Lookup("gpt-7") }); allocs != 0 {
		t.Errorf("empty lookup: %v allocations", allocs)
	}
	for i := range MaxLessons + 10 {
		l.Store("m"+strconv.Itoa(i), &Lesson{})
	}
	if n := len(l.m); n != MaxLessons || int(l.n.Load()) != n {
		t.Errorf("%d models kept, want %d", n, MaxLessons)
	}
	l.Store("gpt-7", &Lesson{Like: "x"})
	if allocs := testing.AllocsPerRun(100, func() { _ = l.Lookup("gpt-7") }); allocs != 0 {
		t.Errorf("lookup: %v allocations", allocs)
	}
	if lr := l.Lookup("gpt-7"); lr == nil || lr.Like != "x" {
		t.Errorf("lookup(gpt-7) = %+v", lr)
	}
}
