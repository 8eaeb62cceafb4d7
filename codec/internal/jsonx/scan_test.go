package jsonx

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestStringMasks checks StringMasks (SSE2 on amd64) and
// stringMasksPortable against their definition on random 64-byte blocks
// of the bytes that matter next to their neighbours in value (0x00, 0x1f,
// 0x20, '"' and '!', '\\' and ']', 0x7f, 0x80, 0xff), so that a lane
// test that leaks into the next lane or mistakes a neighbour shows.
func TestStringMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	interesting := []byte{0, 1, 0x1f, 0x20, '"', '!', '#', '\\', '[', ']', 0x7f, 0x80, 0x9f, 0xa2, 0xdc, 0xff}
	var block [64]byte
	for trial := 0; trial < 200000; trial++ {
		for i := range block {
			if rng.IntN(2) == 0 {
				block[i] = interesting[rng.IntN(len(interesting))]
			} else {
				block[i] = byte(rng.IntN(256))
			}
		}
		var q, b, c uint64
		for i, x := range block {
			if x == '"' {
				q |= 1 << i
			}
			if x == '\\' {
				b |= 1 << i
			}
			if x < 0x20 {
				c |= 1 << i
			}
		}
		for _, f := range []struct {
			name string
			fn   func(*byte) (uint64, uint64, uint64)
		}{{"StringMasks", StringMasks}, {"stringMasksPortable", stringMasksPortable}} {
			gq, gb, gc := f.fn(&block[0])
			if gq != q || gb != b || gc != c {
				t.Fatalf("%s(%q) = %#x %#x %#x, want %#x %#x %#x", f.name, block[:], gq, gb, gc, q, b, c)
			}
		}
	}
}

// TestPlainBlocks checks plainBlocks (SSE2 on amd64) and
// plainBlocksPortable against their definition: text of a few blocks with
// at most one special byte (a quote, a backslash, a control byte, or a
// neighbour of one in value that is not special) at a random place, and
// lengths that end inside a block.
func TestPlainBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	bytes := []byte{'"', '\\', 0, 0x1f, 0x20, '!', '#', '[', ']', 0x7f, 0x80, 0xff}
	buf := make([]byte, 64*6)
	for trial := 0; trial < 100000; trial++ {
		for i := range buf {
			buf[i] = 'a' + byte(rng.IntN(26))
		}
		at := -1
		if rng.IntN(8) != 0 {
			at = rng.IntN(len(buf))
			buf[at] = bytes[rng.IntN(len(bytes))]
		}
		n := rng.IntN(len(buf) + 1)
		want := 0
		for ; n-want >= 64; want += 64 {
			if at >= want && at < want+64 && (buf[at] == '"' || buf[at] == '\\' || buf[at] < 0x20) {
				break
			}
		}
		for _, f := range []struct {
			name string
			fn   func(*byte, int) int
		}{{"plainBlocks", plainBlocks}, {"plainBlocksPortable", plainBlocksPortable}} {
			if got := f.fn(&buf[0], n); got != want {
				t.Fatalf("%s of %d bytes with %q at %d = %d, want %d", f.name, n, buf[max(at, 0)], at, got, want)
			}
		}
	}
}

// BenchmarkStringMasks measures the block classification over 4 KB of
// plain text, with this build's StringMasks and with the portable one.
func BenchmarkStringMasks(b *testing.B) {
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = 'a' + byte(i%26)
	}
	for _, f := range []struct {
		name string
		fn   func(*byte) (uint64, uint64, uint64)
	}{{"build", StringMasks}, {"portable", stringMasksPortable}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			var sink uint64
			for b.Loop() {
				for i := 0; i < len(buf); i += 64 {
					q, bs, c := f.fn(&buf[i])
					sink |= q | bs | c
				}
			}
			if sink != 0 {
				b.Fatal("plain text has special bytes")
			}
		})
	}
}

// TestValidStringBlocks checks the 64-byte block path of validString
// against the byte-at-a-time one on random strings of the bytes that
// matter (quotes, backslash runs across block edges, escapes, \u with good
// and bad digits, control characters), at every length around the block
// size.
func TestValidStringBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", " ", `"`, `\`, `\\`, `\"`, `\n`, `\u00e9`, `\u12G4`, `\ud83d`, `\uDFFF`, `\uE000`, `\uD7FF`, `\\ud800`, `\x`, "\x01", "\n", "é", "u", "0"}
	for trial := 0; trial < 200000; trial++ {
		// Dense pieces, and sparse ones over longer text, whose plain
		// runs of whole blocks are skipped (plainBlocks).
		n, oneIn := rng.IntN(200), 4
		if trial%2 == 1 {
			n, oneIn = rng.IntN(700), 50+rng.IntN(400)
		}
		b := appendRandomText([]byte{'"'}, rng, n, alphabet, oneIn)
		if rng.IntN(3) > 0 {
			b = append(b, '"')
		}
		b = append(b, `,"next"`...)
		s := string(b)
		got, gotEsc := validString(s, 0)
		want, wantEsc := validStringTail(s, 1, 0)
		if got != want || gotEsc != wantEsc {
			t.Fatalf("validString(%q) = %d, %v; byte at a time %d, %v", s, got, gotEsc, want, wantEsc)
		}
		if got < 0 {
			continue
		}
		body := s[1 : got-1]
		if (gotEsc != 0) != strings.Contains(body, `\`) || (gotEsc == escSurrogate) != !escapesNoSurrogate(body) {
			t.Fatalf("validString(%q) says escapes %v", s, gotEsc)
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
	lit := string(AppendStringBody(nil, denseText))
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
		dst = AppendStringBody(dst[:0], denseText)
	}
}
