package jsonx

// escapes is what the validating pass learns of a string literal's
// escapes: whether it holds any, and whether one of them is a \u escape of
// a UTF-16 surrogate, so that a decoder knows without reading the literal
// again whether it may be copied in place of its text.
type escapes uint8

const (
	// escSome marks a literal that holds escapes.
	escSome escapes = 1
	// escSurrogate marks a literal with a \u escape of a surrogate,
	// which holds escapes too.
	escSurrogate escapes = 3
)

// surrogateEscape is escSurrogate when r, the code unit of a \u escape, is
// a UTF-16 surrogate, and escSome otherwise: without a branch, since the
// validating pass meets a \u escape often in some texts.
func surrogateEscape(r rune) escapes {
	// r-0xD800 < 0x800 exactly for the surrogates, as an unsigned number.
	d := uint32(r-0xD800) >> 11 // 0 for a surrogate
	isSur := escapes((d|-d)>>31 ^ 1)
	return escSome | isSur<<1
}
