package bedrock

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
)

// FitBody rewrites, in a Converse body passed through, the fields params
// name (the request parameters a model rule changed) that the body can be
// fitted in: the lifetime of its cachePoints, for a model without the
// hour on Bedrock. Other parameters stay as the client wrote them.
func (converseCodec) FitBody(_ codec.Protocol, body []byte, req *codec.Request, params []string, _ codec.Target) ([]byte, error) {
	return wire.FitParams(body, params, req, fitBody)
}

// fitBody rewrites the field param names.
func fitBody(edit *wire.BodyEdit, param string, _ *codec.Request) {
	if param == rules.Params.CacheTTL {
		dropHourCachePoints(edit)
	}
}

// dropHourCachePoints deletes the "ttl": "1h" of every cachePoint (in
// system, messages and tools), leaving the default lifetime.
func dropHourCachePoints(edit *wire.BodyEdit) {
	var paths []string
	// The body was decoded, so it is valid JSON and these are arrays.
	each := func(v gjson.Result, path string) {
		k := 0
		for _, b := range jsonx.Members(v.Raw, nil) {
			if b.Result().Get("cachePoint.ttl").Str == "1h" {
				paths = append(paths, path+"."+strconv.Itoa(k)+".cachePoint.ttl")
			}
			k++
		}
	}
	root := gjson.ParseBytes(edit.Body)
	each(root.Get("system"), "system")
	each(root.Get("toolConfig.tools"), "toolConfig.tools")
	k := 0
	for _, m := range jsonx.Members(root.Get("messages").Raw, nil) {
		each(m.Result().Get("content"), "messages."+strconv.Itoa(k)+".content")
		k++
	}
	for _, p := range paths {
		edit.Delete(p)
	}
}
