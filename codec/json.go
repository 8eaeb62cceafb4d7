package codec

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// bytesToString views b as a string without copying. The caller must not
// modify b while the string, or anything sliced from it, is in use.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseObject validates body as JSON and checks that it is an object.
func parseObject(body []byte) (gjson.Result, *Error) {
	s := bytesToString(body)
	if !validJSON(s) {
		return gjson.Result{}, invalid("", "request body is not valid JSON")
	}
	return rootObject(s)
}

// parseIndexed is parseObject that also returns the document's structural
// index, for a decode that walks all of it. The caller releases the index
// with releaseIndex once the decode is over.
func parseIndexed(body []byte) (gjson.Result, *jsonIndex, *Error) {
	s := bytesToString(body)
	x := indexDocument(s)
	if x == nil {
		return gjson.Result{}, nil, invalid("", "request body is not valid JSON")
	}
	root, err := rootObject(s)
	if err != nil {
		releaseIndex(x)
		return root, nil, err
	}
	return root, x, nil
}

// rootObject parses the valid document s and checks that it is an object.
func rootObject(s string) (gjson.Result, *Error) {
	root := gjson.Parse(s)
	if !root.IsObject() {
		return gjson.Result{}, invalid("", "request body must be a JSON object")
	}
	return root, nil
}

// typeName describes a JSON value's type for error messages.
func typeName(v gjson.Result) string {
	switch v.Type {
	case gjson.Null:
		return "null"
	case gjson.False, gjson.True:
		return "boolean"
	case gjson.Number:
		return "number"
	case gjson.String:
		return "string"
	}
	if v.IsArray() {
		return "array"
	}
	return "object"
}

// wrongType is the error for a field of the wrong JSON type.
func wrongType(path, want string, got gjson.Result) *Error {
	return invalid(path, "expected "+want+", got "+typeName(got))
}

// readString reads a string field.
func readString(v gjson.Result, path string) (string, *Error) {
	if v.Type != gjson.String {
		return "", wrongType(path, "string", v)
	}
	return v.Str, nil
}

// readStringAt is readString for the member field (".name") of the object
// at path; the path is only put together for an error, since decoders read
// thousands of members per request.
func readStringAt(v gjson.Result, path, field string) (string, *Error) {
	if v.Type != gjson.String {
		return "", wrongType(path+field, "string", v)
	}
	return v.Str, nil
}

// readBool reads a boolean field.
func readBool(v gjson.Result, path string) (bool, *Error) {
	if v.Type != gjson.True && v.Type != gjson.False {
		return false, wrongType(path, "boolean", v)
	}
	return v.Type == gjson.True, nil
}

// readOptBool reads a boolean field; null leaves dst unset.
func readOptBool(v gjson.Result, path string, dst *OptBool) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	b, err := readBool(v, path)
	if err != nil {
		return err
	}
	*dst = OptBool{Value: b, Set: true}
	return nil
}

// readObjectRaw reads a field that must be a JSON object (a JSON Schema,
// say) as its raw text; null leaves dst unchanged.
func readObjectRaw(v gjson.Result, path string, dst *string) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wrongType(path, "object", v)
	}
	*dst = v.Raw
	return nil
}

// readInt reads an integer field; null leaves dst unset.
func readInt(v gjson.Result, path string, dst *OptInt) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if v.Type != gjson.Number || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > 1<<53 {
		return wrongType(path, "integer", v)
	}
	*dst = OptInt{Value: v.Int(), Set: true}
	return nil
}

// readFloat reads a number field; null leaves dst unset.
func readFloat(v gjson.Result, path string, dst *OptFloat) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if v.Type != gjson.Number {
		return wrongType(path, "number", v)
	}
	*dst = OptFloat{Value: v.Num, Set: true}
	return nil
}

// readStringList reads a string or an array of strings (Chat's stop), or an
// array only when single is false, appending to dst.
func readStringList(v gjson.Result, path string, single bool, dst []string) ([]string, *Error) {
	switch {
	case v.Type == gjson.Null:
		return dst, nil
	case v.Type == gjson.String && single:
		return append(dst, v.Str), nil
	case !v.IsArray():
		if single {
			return dst, wrongType(path, "string or array of strings", v)
		}
		return dst, wrongType(path, "array of strings", v)
	}
	var err *Error
	i := 0
	v.ForEach(func(_, s gjson.Result) bool {
		if s.Type != gjson.String {
			err = wrongType(indexPath(path, i), "string", s)
			return false
		}
		dst = append(dst, s.Str)
		i++
		return true
	})
	return dst, err
}

// appendString appends s as a JSON string. Invalid UTF-8 is replaced with
// U+FFFD, as encoding/json does.
func appendString(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	dst = appendStringBody(dst, s)
	return append(dst, '"')
}

// appendStringBody appends s escaped as in a JSON string, without the
// quotes (several texts joined into one string are written this way).
func appendStringBody(dst []byte, s string) []byte {
	if len(s) >= 64 && utf8.ValidString(s) && !hasLineSeparator(s) {
		return appendValidStringBody(dst, s)
	}
	start := 0
	for i := 0; i < len(s); {
		// Skip the plain ASCII bytes a word at a time, two per round so
		// that the checks overlap, and land on the first byte that needs
		// a look: conversation text is mostly plain.
		for i+16 <= len(s) {
			if m := needsEscape8(load8(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
			if m := needsEscape8(load8(s, i+8)); m != 0 {
				i += 8 + bits.TrailingZeros64(m)/8
				goto special
			}
			i += 16
		}
		for i+8 <= len(s) {
			if m := needsEscape8(load8(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
			i += 8
		}
		for i < len(s) && s[i] >= 0x20 && s[i] < utf8.RuneSelf && s[i] != '"' && s[i] != '\\' {
			i++
		}
		if i >= len(s) {
			break
		}
	special:
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript consumers.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// appendValidStringBody is appendStringBody for valid UTF-8 without U+2028 or
// U+2029, where only quotes, backslashes and control characters need
// escaping: it finds them 64 bytes at a time from bit masks, without a
// branch per plain byte or per word.
func appendValidStringBody(dst []byte, s string) []byte {
	start, i := 0, 0
	for ; len(s)-i >= 64; i += 64 {
		q, b, c := stringMasks(unsafe.StringData(s[i:]))
		for m := q | b | c; m != 0; m &= m - 1 {
			k := i + bits.TrailingZeros64(m)
			dst = append(dst, s[start:k]...)
			dst = appendEscapedASCII(dst, s[k])
			start = k + 1
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, c)
			start = i + 1
		}
	}
	return append(dst, s[start:]...)
}

// hasLineSeparator reports whether s holds U+2028 or U+2029 (both encoded
// as E2 80 A8/A9), which appendString escapes.
func hasLineSeparator(s string) bool {
	for {
		i := strings.IndexByte(s, 0xe2)
		if i < 0 || i+2 >= len(s) {
			return false
		}
		if s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
			return true
		}
		s = s[i+1:]
	}
}

// appendEscapedASCII appends the JSON escape of the quote, backslash or
// control character c.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

const hexDigits = "0123456789abcdef"

// load8 reads eight bytes of s at i as a little-endian word; the compiler
// turns it into one load. Slicing first leaves one bounds check instead of
// one per byte.
func load8(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// needsEscape8 returns a mask whose lowest set bit is the high bit of the
// first byte in x (little-endian) that is a control character, a quote, a
// backslash or not ASCII (which needs a UTF-8 check), or zero when there is
// none, with the classic "has a byte less than n" and "has a zero byte"
// word tricks. Bits above the first such byte may be set spuriously.
func needsEscape8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := (x - ones*0x20) & ^x
	q := x ^ (ones * '"')
	quote := (q - ones) & ^q
	b := x ^ (ones * '\\')
	backslash := (b - ones) & ^b
	return (control | quote | backslash | x) & highs
}

// checkBase64 rejects media data that is not base64, so that a malformed
// image fails here with a 400 naming the field instead of at the upstream.
// Both alphabets (standard and URL-safe, which Google's JSON accepts) and
// missing padding are allowed; data travels as given.
func checkBase64(path, s string) *Error {
	n := len(s)
	for n > 0 && s[n-1] == '=' {
		n--
	}
	if len(s)-n > 2 || n%4 == 1 || (len(s) != n && len(s)%4 != 0) {
		return invalid(path, "is not valid base64")
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_') {
			return invalid(path, "is not valid base64")
		}
	}
	return nil
}

// compactJSON removes the whitespace outside strings from the JSON text b,
// in place. Raw JSON copied into an SSE data line must hold no line break:
// a pretty-printed tool call input would otherwise end the line early and
// corrupt the event.
func compactJSON(b []byte) []byte {
	w := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' && i+1 < len(b) {
				b[w] = c
				w++
				i++
				c = b[i]
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		b[w] = c
		w++
	}
	return b[:w]
}

// appendInt appends n as a JSON number.
func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// appendFloat appends f as a JSON number in its shortest exact form.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, '0')
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

// appendStringArray appends ss as a JSON array of strings.
func appendStringArray(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// newID returns prefix followed by 24 random hex digits, for responses whose
// upstream gave no id.
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// maxOpenAIUser is the longest user field OpenAI accepts.
const maxOpenAIUser = 64

// appendOpenAIUser appends an end-user id as OpenAI's user field. OpenAI
// rejects ids over 64 characters, and other protocols' ids are longer
// (Claude Code's metadata.user_id is a JSON object of about 150): such an
// id is sent as the hex SHA-256 of itself, which keeps one user one id for
// abuse monitoring without a 400.
func appendOpenAIUser(dst []byte, user string) []byte {
	if len(user) <= maxOpenAIUser {
		return appendString(dst, user)
	}
	sum := sha256.Sum256([]byte(user))
	dst = append(dst, '"')
	dst = hex.AppendEncode(dst, sum[:])
	return append(dst, '"')
}

// keepLiteral records in p the literal that the string value v was
// unescaped from, when p.Text is v's text and unescaping changed it (an
// escape always shortens a literal). The literal is kept only where
// copying it says exactly what escaping Text would: the text is valid
// UTF-8 and has no U+FFFD, which is what a lone surrogate escape (\ud800)
// unescapes to.
func (p *Part) keepLiteral(v gjson.Result) {
	n := len(v.Raw) - 2
	if n <= len(v.Str) || v.Raw[0] != '"' || p.Text != v.Str {
		return
	}
	if !utf8.ValidString(v.Str) || hasReplacementChar(v.Str) {
		return
	}
	p.literal, p.literalOf = v.Raw[1:n+1], v.Str
}

// hasReplacementChar reports whether s holds U+FFFD. Its first byte is
// rare in text and found with a vectorised search: a search for the whole
// character is several times slower.
func hasReplacementChar(s string) bool {
	for {
		i := strings.IndexByte(s, 0xEF)
		if i < 0 {
			return false
		}
		if strings.HasPrefix(s[i:], "\uFFFD") {
			return true
		}
		s = s[i+1:]
	}
}

// textPart returns a part of kind t holding the string value v, with the
// literal it came from (keepLiteral).
func textPart(t PartType, v gjson.Result) Part {
	p := Part{Type: t, Text: v.Str}
	p.keepLiteral(v)
	return p
}

// appendText appends text, the text of part p or a text made from it, as a
// JSON string: when text is what p's literal decoded to (p.Text as
// decoded, unless something changed it since), the literal is copied
// instead of escaping text again. Comparing the two costs nothing while
// they are the same string.
func appendText(dst []byte, text string, p *Part) []byte {
	dst = append(dst, '"')
	dst = appendTextBody(dst, text, p)
	return append(dst, '"')
}

// appendTextBody is appendText without the quotes.
func appendTextBody(dst []byte, text string, p *Part) []byte {
	if p.literal != "" && text == p.literalOf {
		return append(dst, p.literal...)
	}
	return appendStringBody(dst, text)
}
