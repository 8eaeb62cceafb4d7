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
