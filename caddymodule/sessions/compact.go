package sessions

import (
	"errors"

	"github.com/klauspost/compress/zstd"
)

// Values kept in a shared state store travel over the network and live in
// its memory: a large one (a conversation, whose history grows with every
// turn) is stored compressed with zstd, a small one as it is. The first
// byte says which.
const (
	compactRaw  = 0
	compactZstd = 1
)

// compactMin is the smallest value worth compressing.
const compactMin = 1 << 10

// The zstd encoder and decoder, made once: EncodeAll and DecodeAll may be
// called from many goroutines at once.
var (
	zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	zstdDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(64<<20))
)

// Compact returns v as it is stored: tagged, and compressed when that
// pays.
func Compact(v []byte) []byte {
	if len(v) >= compactMin {
		out := zstdEncoder.EncodeAll(v, append(make([]byte, 0, len(v)/4+16), compactZstd))
		if len(out) < len(v) {
			return out
		}
	}
	return append(append(make([]byte, 0, len(v)+1), compactRaw), v...)
}

// errCompacted is the error of a stored value that is not one Compact
// wrote.
var errCompacted = errors.New("stored value is corrupt")

// Expand returns the value Compact stored as stored.
func Expand(stored []byte) ([]byte, error) {
	if len(stored) == 0 {
		return nil, errCompacted
	}
	switch stored[0] {
	case compactRaw:
		return stored[1:], nil
	case compactZstd:
		v, err := zstdDecoder.DecodeAll(stored[1:], nil)
		if err != nil {
			return nil, errCompacted
		}
		return v, nil
	}
	return nil, errCompacted
}
