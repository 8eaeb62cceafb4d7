package jsonx

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkAppendString fails unless AppendString(s) is valid JSON that decodes
// to what encoding/json's own encoding of s decodes to.
func checkAppendString(t testing.TB, s string) {
	got := AppendString(nil, s)
	var back string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("AppendString(%q) = %s: %v", s, got, err)
	}
	want, _ := json.Marshal(s)
	var wantBack string
	_ = json.Unmarshal(want, &wantBack)
	if back != wantBack {
		t.Fatalf("AppendString(%q) decodes to %q, want %q", s, back, wantBack)
	}
	if strings.ContainsAny(string(got), "\u2028\u2029") {
		t.Fatalf("AppendString(%q) = %s keeps a line separator", s, got)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\n\r\t\b\f\x00\x1f", "é€😀", "\u2028\u2029", "bad \xff\xfe utf8",
		strings.Repeat("12345678", 5) + "\"" + strings.Repeat("x", 9), "\x7f\x80", "ends with \\"} {
		checkAppendString(t, s)
	}
	// Every byte in every position of an 8-byte word.
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 17; pos++ {
			b := []byte(strings.Repeat("a", 17))
			b[pos] = byte(c)
			checkAppendString(t, string(b))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		checkAppendString(t, string(b))
	}
	// Long strings take the 64-byte block path when they are valid UTF-8:
	// mostly plain text with specials and runes at every offset.
	pieces := []string{"\"", "\\", "\n", "\x01", "\x1f", "é", "€", "😀", "\u2028", "\xff"}
	for range 20000 {
		b := appendRandomText(make([]byte, 0, 300), r, r.IntN(300), pieces, 8)
		checkAppendString(t, string(b))
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain text")
	f.Add("\"\\\n\x00\xff\u2028")
	f.Fuzz(func(t *testing.T, s string) { checkAppendString(t, s) })
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("some words of a conversation, ", 8) + "\n\"quoted\" and more.\n"
	dst := make([]byte, 0, 4096)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendString(dst[:0], s)
	}
}

func TestCompact(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"a\": [1, 2],\r\n\t\"b\": \"x y\\n\\\" z\"\n}": `{"a":[1,2],"b":"x y\n\" z"}`,
		`{}`:             `{}`,
		`{"k":"\\"}`:     `{"k":"\\"}`,
		` { "s" : " " }`: `{"s":" "}`,
	} {
		if got := string(Compact([]byte(in))); got != want {
			t.Errorf("Compact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAppendNumbers checks the number writers, including the values JSON
// cannot hold, which are written as 0.
func TestAppendNumbers(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{string(AppendInt(nil, -42)), "-42"},
		{string(AppendInt(nil, math.MaxInt64)), "9223372036854775807"},
		{string(AppendFloat(nil, 0.1)), "0.1"},
		{string(AppendFloat(nil, 1e21)), "1e+21"},
		{string(AppendFloat(nil, 3)), "3"},
		{string(AppendFloat(nil, math.Inf(1))), "0"},
		{string(AppendFloat(nil, math.NaN())), "0"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

func TestAppendStringArray(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{{nil, `[]`}, {[]string{"a"}, `["a"]`}, {[]string{"a", "b\"c"}, `["a","b\"c"]`}} {
		if got := string(AppendStringArray(nil, c.in)); got != c.want {
			t.Errorf("AppendStringArray(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestBytesToString(t *testing.T) {
	if BytesToString(nil) != "" || BytesToString([]byte{}) != "" {
		t.Error("empty bytes are not the empty string")
	}
	b := []byte("abc")
	if s := BytesToString(b); s != "abc" {
		t.Errorf("BytesToString = %q", s)
	}
}
