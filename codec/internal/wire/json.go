package wire

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// ParseObject validates body as JSON and checks that it is an object.
func ParseObject(body []byte) (gjson.Result, *codec.Error) {
	root, problem := jsonx.ParseObject(jsonx.BytesToString(body))
	if problem != "" {
		return root, codec.InvalidRequest("", "request body "+problem)
	}
	return root, nil
}

// ParseIndexed is ParseObject that also returns the document's structural
// index, for a decode that walks all of it. The caller releases the index
// (Index.Release) once the decode is over.
func ParseIndexed(body []byte) (gjson.Result, *jsonx.Index, *codec.Error) {
	root, x, problem := jsonx.ParseIndexed(jsonx.BytesToString(body))
	if problem != "" {
		return root, nil, codec.InvalidRequest("", "request body "+problem)
	}
	return root, x, nil
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

// WrongType is the error for a field of the wrong JSON type.
func WrongType(path, want string, got gjson.Result) *codec.Error {
	return codec.InvalidRequest(path, "expected "+want+", got "+typeName(got))
}

// ReadString reads a string field.
func ReadString(v gjson.Result, path string) (string, *codec.Error) {
	return ReadStringAt(v, path, "")
}

// ReadOptString reads a string field into dst; null leaves dst unchanged.
func ReadOptString(v gjson.Result, path string, dst *string) *codec.Error {
	return ReadOptStringAt(v, path, "", dst)
}

// ReadStringAt is ReadString for the member field (".name") of the object
// at path; the path is only put together for an error, since decoders read
// thousands of members per request. The other readers' At forms do the
// same, and the readers without one are theirs with no field.
func ReadStringAt(v gjson.Result, path, field string) (string, *codec.Error) {
	if v.Type != gjson.String {
		return "", WrongType(path+field, "string", v)
	}
	return v.Str, nil
}

// ReadOptStringAt is ReadOptString for the member field of the object at
// path.
func ReadOptStringAt(v gjson.Result, path, field string, dst *string) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	s, err := ReadStringAt(v, path, field)
	if err == nil {
		*dst = s
	}
	return err
}

// ReadBool reads a boolean field.
func ReadBool(v gjson.Result, path string) (bool, *codec.Error) {
	if v.Type != gjson.True && v.Type != gjson.False {
		return false, WrongType(path, "boolean", v)
	}
	return v.Type == gjson.True, nil
}

// ReadOptBool reads a boolean field; null leaves dst unset.
func ReadOptBool(v gjson.Result, path string, dst *codec.OptBool) *codec.Error {
	return ReadOptBoolAt(v, path, "", dst)
}

// ReadOptBoolAt is ReadOptBool for the member field of the object at path.
func ReadOptBoolAt(v gjson.Result, path, field string, dst *codec.OptBool) *codec.Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.True, gjson.False:
		*dst = codec.OptBool{Value: v.Type == gjson.True, Set: true}
		return nil
	}
	return WrongType(path+field, "boolean", v)
}

// ReadObjectRaw reads a field that must be a JSON object (a JSON Schema,
// say) as its raw text; null leaves dst unchanged.
func ReadObjectRaw(v gjson.Result, path string, dst *string) *codec.Error {
	return ReadObjectRawAt(v, path, "", dst)
}

// ReadObjectRawAt is ReadObjectRaw for the member field of the object at
// path.
func ReadObjectRawAt(v gjson.Result, path, field string, dst *string) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return WrongType(path+field, "object", v)
	}
	*dst = v.Raw
	return nil
}

// ReadInt reads an integer field; null leaves dst unset.
func ReadInt(v gjson.Result, path string, dst *codec.OptInt) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if v.Type != gjson.Number || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > 1<<53 {
		return WrongType(path, "integer", v)
	}
	*dst = codec.OptInt{Value: v.Int(), Set: true}
	return nil
}

// ReadFloat reads a number field; null leaves dst unset.
func ReadFloat(v gjson.Result, path string, dst *codec.OptFloat) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if v.Type != gjson.Number {
		return WrongType(path, "number", v)
	}
	*dst = codec.OptFloat{Value: v.Num, Set: true}
	return nil
}

// ReadStringList reads a string or an array of strings (Chat's stop), or an
// array only when single is false, appending to dst. Escaped strings are
// unescaped into a (nil: allocated).
func ReadStringList(v gjson.Result, path string, single bool, dst []string, a *jsonx.Arena) ([]string, *codec.Error) {
	switch {
	case v.Type == gjson.Null:
		return dst, nil
	case v.Type == gjson.String && single:
		return append(dst, v.Str), nil
	case !v.IsArray():
		if single {
			return dst, WrongType(path, "string or array of strings", v)
		}
		return dst, WrongType(path, "array of strings", v)
	}
	var err *codec.Error
	i := 0
	for _, member := range jsonx.Members(v.Raw, a) {
		s := member.Result()
		if s.Type != gjson.String {
			err = WrongType(IndexPath(path, i), "string", s)
			break
		}
		dst = append(dst, s.Str)
		i++
	}
	return dst, err
}

// CheckBase64 rejects media data that is not base64, so that a malformed
// image fails here with a 400 naming the field instead of at the upstream.
// Both alphabets (standard and URL-safe, which Google's JSON accepts) and
// missing padding are allowed; data travels as given.
func CheckBase64(path, s string) *codec.Error {
	n := len(s)
	for n > 0 && s[n-1] == '=' {
		n--
	}
	if len(s)-n > 2 || n%4 == 1 || (len(s) != n && len(s)%4 != 0) {
		return codec.InvalidRequest(path, "is not valid base64")
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_') {
			return codec.InvalidRequest(path, "is not valid base64")
		}
	}
	return nil
}

// NewID returns prefix followed by 24 random hex digits, for responses whose
// upstream gave no id.
func NewID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// MaxOpenAIUser is the longest user field OpenAI accepts.
const MaxOpenAIUser = 64

// AppendOpenAIUser appends an end-user id as OpenAI's user field. OpenAI
// rejects ids over 64 characters, and other protocols' ids are longer
// (Claude Code's metadata.user_id is a JSON object of about 150): such an
// id is sent as the hex SHA-256 of itself, which keeps one user one id for
// abuse monitoring without a 400.
func AppendOpenAIUser(dst []byte, user string) []byte {
	if len(user) <= MaxOpenAIUser {
		return jsonx.AppendString(dst, user)
	}
	sum := sha256.Sum256([]byte(user))
	dst = append(dst, '"')
	dst = hex.AppendEncode(dst, sum[:])
	return append(dst, '"')
}

// KeepLiteral records in p the literal that the string value v was
// unescaped from, when p.Text is v's text and unescaping changed it (an
// escape always shortens a literal). The literal is kept only where
// copying it says exactly what escaping Text would: the text is valid
// UTF-8 and has no U+FFFD, which is what a lone surrogate escape (\ud800)
// unescapes to.
func KeepLiteral(p *codec.Part, v gjson.Result) {
	n := len(v.Raw) - 2
	if n <= len(v.Str) || v.Raw[0] != '"' || p.TextValue() != v.Str {
		return
	}
	if !utf8.ValidString(v.Str) || HasReplacementChar(v.Str) {
		return
	}
	p.SetTextLiteral(v.Str, v.Raw[1:n+1])
}

// HasReplacementChar reports whether s holds U+FFFD. Its first byte is
// rare in text and found with a vectorised search: a search for the whole
// character is several times slower.
func HasReplacementChar(s string) bool {
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

// TextPart returns a part of kind t holding the string value v, with the
// literal it came from (KeepLiteral).
func TextPart(t codec.PartType, v gjson.Result) codec.Part {
	p := codec.Part{Type: t, Text: v.Str}
	KeepLiteral(&p, v)
	return p
}

// PlainText reads the commonest content part of every protocol, an object
// of exactly two members, "type" (whose raw literal is one of typeLiterals,
// such as `"text"`) and "text" (a string), from a's document, and returns
// it as a text part. It reports false for anything else (more members,
// another type, a malformed part), which the protocol's full part decoder
// then reads and judges: this only skips that decoder's general collection
// of members for the parts that need none of it.
func PlainText(a *jsonx.Arena, raw string, typeLiterals ...string) (codec.Part, bool) {
	// An array's elements and a scalar have no key, which is not a member
	// of the part.
	var text jsonx.Value // the literal, unescaped only once the part qualifies
	sawType := false
	for key, value := range jsonx.Members(raw, a) {
		switch key {
		case "type":
			if !slices.Contains(typeLiterals, value.Raw) {
				return codec.Part{}, false
			}
			sawType = true
		case "text":
			if value.Raw[0] != '"' {
				return codec.Part{}, false
			}
			text = value
		default:
			return codec.Part{}, false
		}
	}
	if !sawType || text.Raw == "" {
		return codec.Part{}, false
	}
	return ValueTextPart(codec.PartText, text), true
}

// ValueTextPart returns a part of kind t holding the string value v of a
// walk: when its literal holds escapes that may be copied as they are
// (jsonx.Value.Copyable, and valid UTF-8), the part holds the literal without unescaping
// it (Part.SetEscapedText), for an encoder to copy and a reader to
// unescape through Part.TextValue; otherwise the text is unescaped now,
// with its literal kept (TextPart).
func ValueTextPart(t codec.PartType, v jsonx.Value) codec.Part {
	p := codec.Part{Type: t}
	SetValueText(&p, v)
	return p
}

// CopyableBody returns the body of v's string literal (its quotes left
// out) when an encoder may copy it in place of the text it says: it holds
// escapes, none of a surrogate (jsonx.Value.Copyable), and its bytes are
// valid UTF-8.
func CopyableBody(v jsonx.Value) (string, bool) {
	if !v.Copyable() {
		return "", false
	}
	body := v.Raw[1 : len(v.Raw)-1]
	return body, utf8.ValidString(body)
}

// SetValueText sets the text of p to the string value v of a walk, as
// ValueTextPart does.
func SetValueText(p *codec.Part, v jsonx.Value) {
	if body, ok := CopyableBody(v); ok {
		p.SetEscapedText(body)
		return
	}
	r := v.Result()
	p.Text = r.Str
	KeepLiteral(p, r)
}

// AppendPartText appends p's text as a JSON string: the literal it was
// decoded from when p keeps one and its text is unchanged (Part.JSONText),
// without unescaping a text still escaped, else its text escaped.
func AppendPartText(dst []byte, p *codec.Part) []byte {
	dst = append(dst, '"')
	dst = AppendPartTextBody(dst, p)
	return append(dst, '"')
}

// AppendPrefixedPartText is AppendPartText for prefix followed by p's
// text, prefix being plain text that needs no escape ("Error: ").
func AppendPrefixedPartText(dst []byte, prefix string, p *codec.Part) []byte {
	dst = append(dst, '"')
	dst = append(dst, prefix...)
	dst = AppendPartTextBody(dst, p)
	return append(dst, '"')
}

// AppendPartTextBody is AppendPartText without the quotes.
func AppendPartTextBody(dst []byte, p *codec.Part) []byte {
	if raw, ok := p.JSONText(); ok {
		return append(dst, raw...)
	}
	return jsonx.AppendStringBody(dst, p.TextValue())
}
