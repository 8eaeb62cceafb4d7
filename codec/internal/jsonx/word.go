package jsonx

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

// load8 reads eight bytes of s at i as a little-endian word; the compiler
// turns it into one load. Slicing first leaves one bounds check instead of
// one per byte.
func load8(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// stringSpecial8 returns a mask whose lowest set bit is the high bit of
// the first byte in x (little-endian) that is a quote, a backslash or a
// control character, or zero when there is none. Bits above the first
// such byte may be set spuriously: the classic "has a byte less than n"
// and "has a zero byte" tricks borrow across lanes, which is harmless
// here, since only the first special byte is looked at.
func stringSpecial8(x uint64) uint64 {
	control := (x - laneOnes*0x20) & ^x
	q := x ^ (laneOnes * '"')
	quote := (q - laneOnes) & ^q
	b := x ^ (laneOnes * '\\')
	backslash := (b - laneOnes) & ^b
	return (control | quote | backslash) & laneHighs
}

// needsEscape8 returns a mask whose lowest set bit is the high bit of the
// first byte in x (little-endian) that is a quote, a backslash, a control
// character or not ASCII (which needs a UTF-8 check), or zero when there
// is none; bits above it may be set spuriously, as in stringSpecial8.
func needsEscape8(x uint64) uint64 {
	return stringSpecial8(x) | x&laneHighs
}

// AppendStringBody and validStringTail skip plain bytes with these
// helpers, two words per round, then a word, then a byte at a time. The
// loops stay in each function: taken out into one function they cost a
// call for every special byte, which showed on escape-dense text
// (BenchmarkEscapeDense).
