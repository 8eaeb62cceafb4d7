package wire

import (
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/codec"
)

// BodyEdit edits a JSON body in place, path by path, keeping the first
// error: what fitting a passthrough body to a model takes.
type BodyEdit struct {
	Body []byte
	Err  error
}

// Set sets the value at path.
func (e *BodyEdit) Set(path string, v any) {
	if e.Err == nil {
		e.Body, e.Err = sjson.SetBytes(e.Body, path, v)
	}
}

// Delete deletes the value at path.
func (e *BodyEdit) Delete(path string) {
	if e.Err == nil {
		e.Body, e.Err = sjson.DeleteBytes(e.Body, path)
	}
}

// PatchSampling writes, under prefix, a sampling setting the rules removed or bounded.
func PatchSampling(e *BodyEdit, param string, req *codec.Request, prefix string) {
	var v codec.OptFloat
	switch param {
	case "temperature":
		v = req.Temperature
	case "top_p", "topP":
		v = req.TopP
	case "top_k", "topK":
		if !req.TopK.Set {
			e.Delete(prefix + param)
		}
		return
	case "presence_penalty", "presencePenalty":
		v = req.PresencePenalty
	case "frequency_penalty", "frequencyPenalty":
		v = req.FrequencyPenalty
	default:
		return
	}
	if v.Set {
		e.Set(prefix+param, v.Value)
	} else {
		e.Delete(prefix + param)
	}
}

// FitParams rewrites, in body, each field that params name (the request
// parameters a model rule changed) with fit, from req, the body decoded
// and fitted to the routed model; every other byte is kept. It is the loop
// of every family's FitBody.
func FitParams(body []byte, params []string, req *codec.Request, fit func(e *BodyEdit, param string, req *codec.Request)) ([]byte, error) {
	edit := BodyEdit{Body: body}
	for _, param := range params {
		fit(&edit, param, req)
	}
	return edit.Body, edit.Err
}
