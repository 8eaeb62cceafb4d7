package jsonx

import (
	"encoding/binary"
	"unsafe"
)

// Word-at-a-time byte classification. Each function below takes eight
// bytes as a little-endian word and returns 0x80 in the byte lanes that
// match and 0 in the others, exactly: the additions stay within each lane
// (a lane's low seven bits plus at most 0x7f never carry into the next),
// unlike the classic "has a zero byte" test, whose borrows can flag a lane
// after a match.
const (
	laneOnes  = 0x0101010101010101
	laneLows  = 0x7f7f7f7f7f7f7f7f
	laneHighs = 0x8080808080808080
)

// lanesZero marks the lanes of x that are zero.
func lanesZero(x uint64) uint64 {
	return ^((x&laneLows + laneLows) | x) & laneHighs
}

// lanesBelow marks the lanes of x whose byte is below n (1 <= n <= 0x80).
func lanesBelow(x uint64, n byte) uint64 {
	return ^((x&laneLows + laneOnes*uint64(0x80-n)) | x) & laneHighs
}

// laneBits packs the lane marks of m (bit 7 of each byte) into eight bits,
// lane i to bit i: the multiplication moves each mark to bit 56+i, and no
// two partial products meet or carry.
func laneBits(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}

// stringMasksPortable classifies the 64 bytes at p, bit i standing for
// p[i]: quotes, backslashes and control characters (below 0x20). It reads
// eight words and classifies each with the lane functions above, so that
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
