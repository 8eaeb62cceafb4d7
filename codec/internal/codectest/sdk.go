package codectest

import (
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// ParseResponsesStream runs an SSE body through the SDK as NewStreaming does.
func ParseResponsesStream(t *testing.T, body []byte) ([]responses.ResponseStreamEventUnion, error) {
	t.Helper()
	res := &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}},
		Body:       io.NopCloser(bytes.NewReader(body)),
	}
	stream := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(res), nil)
	var evs []responses.ResponseStreamEventUnion
	for stream.Next() {
		evs = append(evs, stream.Current())
	}
	return evs, stream.Err()
}

// CheckSDKFields fails when a field the SDK marks required is missing, or when
// a field has a type the SDK could not read, anywhere in v.
func CheckSDKFields(t *testing.T, path string, v reflect.Value) {
	t.Helper()
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			CheckSDKFields(t, path+"[]", v.Index(i))
		}
		return
	case reflect.Struct:
	default:
		return
	}
	meta := v.FieldByName("JSON")
	if !meta.IsValid() {
		return
	}
	ft := v.Type()
	for i := 0; i < ft.NumField(); i++ {
		f := ft.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		m := meta.FieldByName(f.Name)
		if !m.IsValid() {
			continue
		}
		field := m.Interface().(respjson.Field)
		raw := field.Raw()
		switch {
		case raw == respjson.Omitted:
			if strings.Contains(f.Tag.Get("api"), "required") && !notSent[name] {
				t.Errorf("%s.%s: required field missing", path, name)
			}
			continue
		case raw == respjson.Null:
			continue
		case !field.Valid():
			t.Errorf("%s.%s: the SDK cannot read %s", path, name, raw)
		}
		CheckSDKFields(t, path+"."+name, v.Field(i))
	}
}

// notSent are fields openai-go marks required that OpenAI itself does not
// send (cache_write_tokens is absent from real traffic),
// nor llmbridge's non-streamed encoder unless non-zero.
var notSent = map[string]bool{"cache_write_tokens": true}
