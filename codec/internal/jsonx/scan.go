package jsonx

import (
	"encoding/binary"
	"unsafe"
)

// stringMasksPortable classifies the 64 bytes at p, bit i standing for
// p[i]: quotes, backslashes and control characters (below 0x20). It reads
// eight words and classifies each with the lane functions (word.go), so that
// every architecture scans strings in the same 64-byte blocks. The caller
// guarantees that 64 bytes are readable.
func stringMasksPortable(p *byte) (quote, backslash, control uint64) {
	b := unsafe.Slice(p, 64)
	for w := 0; w < 64; w += 8 {
		x := binary.LittleEndian.Uint64(b[w:])
		q, bs, c := lanesZero(x^laneOnes*'"'), lanesZero(x^laneOnes*'\\'), lanesBelow(x, 0x20)
		if q|bs|c == 0 {
			continue // most words of text hold none
		}
		quote |= laneBits(q) << w
		backslash |= laneBits(bs) << w
		control |= laneBits(c) << w
	}
	return quote, backslash, control
}

// plainBlocksPortable is plainBlocks a word at a time: the run of whole
// 64-byte blocks at p, within n bytes, before the first block that holds a
// quote, a backslash or a control character. The word tests tell exactly
// whether a word holds such a byte (only which byte comes first can be
// misread past the first, see stringSpecial8).
func plainBlocksPortable(p *byte, n int) int {
	s := unsafe.String(p, n)
	i := 0
	for ; n-i >= 64; i += 64 {
		var m uint64
		for w := 0; w < 64; w += 8 {
			m |= stringSpecial8(load8(s, i+w))
		}
		if m != 0 {
			break
		}
	}
	return i
}
