package codec

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// parseObject validates body as JSON and checks that it is an object.
func parseObject(body []byte) (gjson.Result, *Error) {
	s := jsonx.BytesToString(body)
	if !jsonx.Valid(s) {
		return gjson.Result{}, invalid("", "request body is not valid JSON")
	}
	return rootObject(s)
}

// parseIndexed is parseObject that also returns the document's structural
// index, for a decode that walks all of it. The caller releases the index
// (Index.Release) once the decode is over.
func parseIndexed(body []byte) (gjson.Result, *jsonx.Index, *Error) {
	s := jsonx.BytesToString(body)
	x := jsonx.IndexDocument(s)
	if x == nil {
		return gjson.Result{}, nil, invalid("", "request body is not valid JSON")
	}
	root, err := rootObject(s)
	if err != nil {
		x.Release()
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
		return jsonx.AppendString(dst, user)
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
func keepLiteral(p *Part, v gjson.Result) {
	n := len(v.Raw) - 2
	if n <= len(v.Str) || v.Raw[0] != '"' || p.Text != v.Str {
		return
	}
	if !utf8.ValidString(v.Str) || hasReplacementChar(v.Str) {
		return
	}
	p.SetTextLiteral(v.Str, v.Raw[1:n+1])
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
	keepLiteral(&p, v)
	return p
}

// plainText reads the commonest content part of every protocol, an object
// of exactly two members, "type" (whose raw literal is one of typeLiterals,
// such as `"text"`) and "text" (a string), from a's document, and returns
// it as a text part. It reports false for anything else (more members,
// another type, a malformed part), which the protocol's full part decoder
// then reads and judges: this only skips that decoder's general collection
// of members for the parts that need none of it.
func plainText(a *jsonx.Arena, raw string, typeLiterals ...string) (Part, bool) {
	var m jsonx.MemberIter
	if !m.Init(raw, a) || !m.IsObject() {
		return Part{}, false
	}
	var text string // the raw literal, unescaped only once the part qualifies
	escaped := false
	sawType := false
	for {
		key, value, ok := m.Next()
		if !ok {
			break
		}
		switch key {
		case "type":
			if !slices.Contains(typeLiterals, value) {
				return Part{}, false
			}
			sawType = true
		case "text":
			if value[0] != '"' {
				return Part{}, false
			}
			text, escaped = value, m.Escaped()
		default:
			return Part{}, false
		}
	}
	if !sawType || text == "" {
		return Part{}, false
	}
	return textPart(PartText, a.StringValue(text, escaped)), true
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
	if raw, ok := p.TextLiteral(text); ok {
		return append(dst, raw...)
	}
	return jsonx.AppendStringBody(dst, text)
}
