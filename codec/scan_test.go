package codec

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPrefixScans checks plainPrefix and asciiPrefix (vectorised on amd64)
// against their definition: the result is the first special byte, or
// where the whole 16-byte blocks end if there is none in them; it is never
// past a special byte, and a generic build may stop anywhere before one.
func TestPrefixScans(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' }
	ascii := func(c byte) bool { return plain(c) && c < 0x80 }
	rng := rand.New(rand.NewPCG(1, 2))
	specials := []byte{'"', '\\', 0, 0x1f, '\n', 0x80, 0xe2, 0xff}
	for n := 0; n < 200; n++ {
		for trial := 0; trial < 40; trial++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(0x20 + rng.IntN(0x5f))
			}
			if n > 0 && trial > 0 {
				for range 1 + rng.IntN(3) {
					b[rng.IntN(n)] = specials[rng.IntN(len(specials))]
				}
			}
			s := string(b)
			for _, c := range []struct {
				name string
				fn   func(string) int
				ok   func(byte) bool
			}{{"plainPrefix", plainPrefix, plain}, {"asciiPrefix", asciiPrefix, ascii}} {
				got := c.fn(s)
				first := 0
				for first < n && c.ok(s[first]) {
					first++
				}
				if got > first || got > n {
					t.Fatalf("%s(%q) = %d, past the first special byte at %d", c.name, s, got, first)
				}
				if vectorised && got != min(first, n&^15) {
					t.Fatalf("%s(%q) = %d, want %d", c.name, s, got, min(first, n&^15))
				}
			}
		}
	}
}

// BenchmarkPrefixScans measures the scans over 4 KB of plain text.
func BenchmarkPrefixScans(b *testing.B) {
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = 'a' + byte(i%26)
	}
	s := string(buf)
	b.Run("plainPrefix", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			plainPrefix(s)
		}
	})
	b.Run("asciiPrefix", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			asciiPrefix(s)
		}
	})
}

// TestValidStringBlocks checks the 64-byte block path of validString
// against the byte-at-a-time one on random strings of the bytes that
// matter (quotes, backslash runs across block edges, escapes, \u with good
// and bad digits, control characters), at every length around the block
// size.
func TestValidStringBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", " ", `"`, `\`, `\\`, `\"`, `\n`, `\u00e9`, `\u12G4`, `\x`, "\x01", "\n", "é", "u", "0"}
	for trial := 0; trial < 200000; trial++ {
		b := appendRandomText([]byte{'"'}, rng, rng.IntN(200), alphabet, 4)
		if rng.IntN(3) > 0 {
			b = append(b, '"')
		}
		b = append(b, `,"next"`...)
		s := string(b)
		got, gotEsc := validString(s, 0)
		want, wantEsc := validStringTail(s, 1, false)
		if got != want || gotEsc != wantEsc {
			t.Fatalf("validString(%q) = %d, %v; byte at a time %d, %v", s, got, gotEsc, want, wantEsc)
		}
	}
}

// appendRandomText appends random lowercase letters to b, with one of
// pieces in place of a letter one time in oneIn, until b holds n bytes.
func appendRandomText(b []byte, rng *rand.Rand, n int, pieces []string, oneIn int) []byte {
	for len(b) < n {
		if rng.IntN(oneIn) == 0 {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		} else {
			b = append(b, 'a'+byte(rng.IntN(26)))
		}
	}
	return b
}

// TestUnescapeBlocks checks appendUnescaped (64-byte blocks, then a byte
// loop) against encoding/json on random escaped strings of every length
// around the block size, with backslash runs and \u escapes (surrogate
// pairs included) crossing block edges.
func TestUnescapeBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "xyz", " ", `\"`, `\\`, `\\\\`, `\/`, `\n`, `\t`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, "é", "\u2028"}
	for trial := 0; trial < 100000; trial++ {
		body := string(appendRandomText(nil, rng, rng.IntN(260), pieces, 3))
		var want string
		if err := json.Unmarshal([]byte(`"`+body+`"`), &want); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if got := string(appendUnescaped(nil, body)); got != want {
			t.Fatalf("appendUnescaped(%q) = %q, want %q", body, got, want)
		}
	}
}

// denseText is source code and prose as agents send them: an escape every
// few bytes (newlines, tabs, quotes), the worst realistic case for the
// string loops.
var denseText = strings.Repeat("package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n", 20) +
	strings.Repeat("You are an interactive CLI tool. Follow the \"rules\" below carefully.\n", 15)

// BenchmarkUnescapeDense measures unescaping a JSON string body dense with
// escapes.
func BenchmarkUnescapeDense(b *testing.B) {
	lit := string(appendStringBody(nil, denseText))
	dst := make([]byte, 0, len(lit)+64)
	b.SetBytes(int64(len(lit)))
	for b.Loop() {
		dst = appendUnescaped(dst[:0], lit)
	}
}

// BenchmarkEscapeDense measures escaping text dense with characters that
// need escapes.
func BenchmarkEscapeDense(b *testing.B) {
	dst := make([]byte, 0, 2*len(denseText))
	b.SetBytes(int64(len(denseText)))
	for b.Loop() {
		dst = appendStringBody(dst[:0], denseText)
	}
}
