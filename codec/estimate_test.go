package codec

import (
	"strings"
	"testing"
)

func TestEstimateInputTokens(t *testing.T) {
	text := strings.Repeat("word ", 600) // 3,000 bytes
	for _, tc := range []struct {
		name string
		req  Request
		want int64
	}{
		{"empty", Request{}, 0},
		{"text", Request{Messages: []Message{{Parts: []Part{{Type: PartText, Text: text}}}}}, 1000},
		{"system and tools", Request{System: []Part{{Type: PartText, Text: text}}, Tools: []Tool{{Name: "ls", Parameters: strings.Repeat("x", 298)}}}, 1100},
		{"image counted flat", Request{Messages: []Message{{Parts: []Part{{Type: PartImage, Data: strings.Repeat("A", 1<<20)}}}}}, imageTokens},
		{"tool result", Request{Messages: []Message{{Parts: []Part{{Type: PartToolResult, Content: []Part{{Type: PartText, Text: text}, {Type: PartImage}}}}}}}, 1000 + imageTokens},
	} {
		if got := EstimateInputTokens(&tc.req); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
