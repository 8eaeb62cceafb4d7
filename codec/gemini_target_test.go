package codec

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// Tests of what EncodeOptions.Target changes in Gemini and Vertex request
// bodies.

func TestGeminiThinkingLevelEncode(t *testing.T) {
	budget := func(n int64) OptInt { return OptInt{Value: n, Set: true} }
	tests := []struct {
		name    string
		r       Reasoning
		budgets mapping.EffortBudgets
		want    string // the thinkingConfig, or "" for none
	}{
		{name: "nothing asked, nothing sent"},
		{name: "a summary alone", r: Reasoning{Summary: "auto"}},
		{name: "a display alone", r: Reasoning{Display: "summarized"}},
		{name: "effort minimal", r: Reasoning{Effort: mapping.EffortMinimal}, want: `{"thinkingLevel":"minimal","includeThoughts":true}`},
		{name: "effort low", r: Reasoning{Effort: mapping.EffortLow}, want: `{"thinkingLevel":"low","includeThoughts":true}`},
		{name: "effort medium", r: Reasoning{Effort: mapping.EffortMedium}, want: `{"thinkingLevel":"medium","includeThoughts":true}`},
		{name: "effort high", r: Reasoning{Effort: mapping.EffortHigh}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "effort xhigh is high", r: Reasoning{Effort: mapping.EffortXHigh}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "effort max is high", r: Reasoning{Effort: mapping.EffortMax}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "a budget is the effort it stands for", r: Reasoning{Budget: budget(5000)}, want: `{"thinkingLevel":"medium","includeThoughts":true}`},
		{name: "the smallest budget is minimal", r: Reasoning{Budget: budget(1024)}, want: `{"thinkingLevel":"minimal","includeThoughts":true}`},
		{name: "a budget of xhigh is high", r: Reasoning{Budget: budget(31999)}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "a budget above every effort is high", r: Reasoning{Budget: budget(100000)}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "a budget with configured budgets", r: Reasoning{Budget: budget(3000)}, budgets: mapping.EffortBudgets{Low: 4096},
			want: `{"thinkingLevel":"low","includeThoughts":true}`},
		{name: "an effort beside a budget wins", r: Reasoning{Effort: mapping.EffortLow, Budget: budget(30000)}, want: `{"thinkingLevel":"low","includeThoughts":true}`},
		{name: "adaptive is the model's default level", r: Reasoning{Adaptive: true}, want: `{"includeThoughts":true}`},
		{name: "a dynamic budget is the model's default level", r: Reasoning{Budget: budget(-1)}, want: `{"includeThoughts":true}`},
		{name: "adaptive with an effort", r: Reasoning{Adaptive: true, Effort: mapping.EffortMedium}, want: `{"thinkingLevel":"medium","includeThoughts":true}`},
		{name: "adaptive, display omitted", r: Reasoning{Adaptive: true, Display: "omitted"}, want: `{"includeThoughts":false}`},
		{name: "a level, display omitted", r: Reasoning{Effort: mapping.EffortHigh, Display: "omitted"}, want: `{"thinkingLevel":"high","includeThoughts":false}`},
		{name: "effort none writes no level and asks for no thoughts", r: Reasoning{Effort: mapping.EffortNone}, want: `{"includeThoughts":false}`},
		{name: "effort none wins over a budget", r: Reasoning{Effort: mapping.EffortNone, Budget: budget(3000)}, want: `{"includeThoughts":false}`},
		{name: "budget zero is effort none", r: Reasoning{Budget: budget(0)}, want: `{"includeThoughts":false}`},
		{name: "thinking off, but thoughts asked for", r: Reasoning{Budget: budget(0), IncludeThoughts: OptBool{Value: true, Set: true}}, want: `{"includeThoughts":true}`},
		{name: "includeThoughts false wins", r: Reasoning{Effort: mapping.EffortHigh, IncludeThoughts: OptBool{Set: true}}, want: `{"thinkingLevel":"high","includeThoughts":false}`},
		{name: "includeThoughts alone", r: Reasoning{IncludeThoughts: OptBool{Value: true, Set: true}}, want: `{"includeThoughts":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []Protocol{Gemini, Vertex} {
				req := Request{Messages: []Message{geminiText(RoleUser, "q")}, Reasoning: tt.r}
				out, err := AppendRequest(nil, p, &req, EncodeOptions{EffortBudgets: tt.budgets, Target: Target{ThinkingLevel: true}})
				if err != nil {
					t.Fatal(err)
				}
				if got := gjson.GetBytes(out, "generationConfig.thinkingConfig").Raw; got != tt.want {
					t.Errorf("%s: thinkingConfig %s, want %s (body %s)", p, got, tt.want, out)
				}
				if strings.Contains(string(out), "thinkingBudget") {
					t.Errorf("%s: a thinkingBudget toward a level model: %s", p, out)
				}
			}
		})
	}
}
