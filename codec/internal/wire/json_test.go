package wire

import (
	"testing"
)

func TestCheckBase64(t *testing.T) {
	for _, ok := range []string{"", "QQ==", "QUI=", "QUJD", "QUJDRA", "a-_b", "iVBORw0KGgo="} {
		if err := CheckBase64("p", ok); err != nil {
			t.Errorf("checkBase64(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"!!not*base64~~", "QUJDR", "Q===", "QQ=", "a b c d", "QUJD\n", "QQ==QQ=="} {
		if err := CheckBase64("p", bad); err == nil || err.Param != "p" {
			t.Errorf("checkBase64(%q) = %v, want a 400 about p", bad, err)
		}
	}
}

func TestHasReplacementChar(t *testing.T) {
	for s, want := range map[string]bool{
		"": false, "plain": false, "\uFFFD": true, "a\uFF01b\uFFFDc": true, "\uFF01\uFFFE": false, "\xef": false, "\xef\xbf": false,
	} {
		if got := HasReplacementChar(s); got != want {
			t.Errorf("hasReplacementChar(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestRemovableElement(t *testing.T) {
	for param, want := range map[string]string{
		"logprobs":                               "logprobs",
		"tools[2]":                               "tools[2]",
		"tools[2].type":                          "tools[2]",
		"messages[3].role":                       "messages[3]",
		"messages[0].content[1].file.file_id":    "messages[0].content[1]",
		"messages[0].content[1].source.type":     "messages[0].content[1]",
		"messages[0].content[1].citations":       "messages[0].content[1].citations",
		"thinking.type":                          "thinking",
		"generationConfig.candidateCount":        "generationConfig.candidateCount",
		"generationConfig.responseModalities[1]": "generationConfig.responseModalities[1]",
		"":                                       "",
		".foo":                                   "",
		"[0]":                                    "",
	} {
		if got := removableElement(param); got != want {
			t.Errorf("removableElement(%q) = %q, want %q", param, got, want)
		}
	}
}
