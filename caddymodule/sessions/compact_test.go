package sessions

import (
	"bytes"
	"strings"
	"testing"
)

func TestCompact(t *testing.T) {
	conversation := []byte(`[` + strings.Repeat(`{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]},`, 200) + `{}]`)
	for _, v := range [][]byte{nil, []byte("short"), conversation} {
		stored := Compact(v)
		got, err := Expand(stored)
		if err != nil || !bytes.Equal(got, v) {
			t.Errorf("%d bytes: expanded %d bytes, %v", len(v), len(got), err)
		}
	}
	if stored := Compact(conversation); len(stored) > len(conversation)/5 {
		t.Errorf("a conversation of %d bytes is stored in %d", len(conversation), len(stored))
	}
	for _, bad := range [][]byte{nil, {7, 1}, {compactZstd, 1, 2, 3}} {
		if _, err := Expand(bad); err == nil {
			t.Errorf("Expand(%v) succeeded", bad)
		}
	}
}
