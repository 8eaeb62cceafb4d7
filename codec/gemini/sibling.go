package gemini

import (
	"bytes"
	"errors"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
)

// vertexFromGemini adapts a Gemini API body to Vertex, which rejects the
// ids of function calls and results (removeCallIDs).
func vertexFromGemini(body []byte, from codec.Protocol, _ string) ([]byte, error) {
	if from != codec.Gemini {
		return body, nil
	}
	return removeCallIDs(body)
}

// callKeys are the members of a Gemini part that hold an object with
// a call id, in both spellings Google's servers accept.
var callKeys = [...]string{"functionCall", "function_call", "functionResponse", "function_response"}

// removeCallIDs returns body without the id members of the
// functionCall and functionResponse objects in contents[*].parts[*], which
// Vertex AI rejects ("Unknown name \"id\""). Vertex matches results to
// calls by name and order instead. Each object that has an id is written
// again without it, in one pass over the body; the rest of the body is
// copied as it is, and a body without an "id" key is returned unchanged.
func removeCallIDs(body []byte) ([]byte, error) {
	if !bytes.Contains(body, []byte(`"id"`)) {
		return body, nil
	}
	var out []byte
	last := 0 // the end of what body has been copied to out up to
	var err error
	gjson.GetBytes(body, "contents").ForEach(func(_, content gjson.Result) bool {
		content.Get("parts").ForEach(func(_, part gjson.Result) bool {
			part.ForEach(func(k, v gjson.Result) bool {
				if !isCallKey(k.Str) || !v.IsObject() || !v.Get("id").Exists() {
					return true
				}
				end := v.Index + len(v.Raw)
				if v.Index < last || end > len(body) || string(body[v.Index:end]) != v.Raw {
					err = errors.New("a function call could not be located in the body")
					return false
				}
				out = append(out, body[last:v.Index]...)
				out = appendWithoutID(out, v)
				last = end
				return true
			})
			return err == nil
		})
		return err == nil
	})
	switch {
	case err != nil:
		return nil, err
	case out == nil:
		return body, nil
	}
	return append(out, body[last:]...), nil
}

// isCallKey reports whether k is one of callKeys.
func isCallKey(k string) bool {
	for _, c := range callKeys {
		if k == c {
			return true
		}
	}
	return false
}

// appendWithoutID appends the object obj without its id members (all of
// them, should the key repeat).
func appendWithoutID(dst []byte, obj gjson.Result) []byte {
	dst = append(dst, '{')
	n := 0
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == "id" {
			return true
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, k.Raw...)
		dst = append(dst, ':')
		dst = append(dst, v.Raw...)
		n++
		return true
	})
	return append(dst, '}')
}
