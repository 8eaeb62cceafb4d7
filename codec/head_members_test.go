package codec_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
)

// topMemberBodies are bodies for ReadTopMembers: members before, between
// and after the ones looked up, nested decoys, escapes that hide a quote,
// repeated keys (the first counts, as with gjson), escaped keys, and
// malformed bodies.
var topMemberBodies = []string{
	`{"previous_response_id":"resp_1","store":false}`,
	`{"input":[{"type":"message","content":"a \"store\":false, \\"}],"store":false,"previous_response_id":"r"}`,
	`{"x":{"previous_response_id":"no","store":false},"y":[1,{"store":false}],"previous_response_id":"yes"}`,
	`{"previous_response_id":"a","previous_response_id":"b","store":true,"store":false}`,
	`{"previous\u005fresponse_id":"esc","sto\u0072e":false}`,
	` { "store" : false , "n" : -1.5e3 , "t" : true , "z" : null , "previous_response_id" : "p\u00e9" } `,
	`{"previous_response_id":12,"store":"false"}`,
	`{}`, `[]`, `"s"`, ``, `{`, `{"store"`, `{"store":`, `{"store":fal`, `{"a":"unclosed`,
	`{"a":[1,2,"x"],"store":false`, `{"a" "b","store":false}`, `{"a":1 "store":false}`,
}

// TestReadTopMembers checks ReadTopMembers against gjson's Get, and
// SkimTopMembers against gjson's ForEach, on every body above and on
// random cuts and byte flips of them, where they must not panic and must
// agree with gjson whenever the body is valid JSON.
func TestReadTopMembers(t *testing.T) {
	keys := []string{"previous_response_id", "store", "missing"}
	check := func(body string) {
		var got [3]gjson.Result
		isObject := codec.ReadTopMembers([]byte(body), keys, got[:])
		if !gjson.Valid(body) {
			return
		}
		root := gjson.Parse(body)
		if isObject != root.IsObject() {
			t.Fatalf("%s: object %v, gjson %v", body, isObject, root.IsObject())
		}
		if !isObject {
			return
		}
		for k, key := range keys {
			want := root.Get(key)
			if got[k].Type != want.Type || got[k].Str != want.Str || got[k].Raw != want.Raw {
				t.Fatalf("%s: %s = %+v, gjson %+v", body, key, got[k], want)
			}
		}
		// A valid object is walked whole, member by member as gjson
		// walks it.
		var members, wantMembers []string
		_, whole := codec.SkimTopMembers([]byte(body), func(key, literal, raw string) bool {
			members = append(members, key, `"`+literal+`"`, raw)
			return true
		})
		root.ForEach(func(k, v gjson.Result) bool {
			wantMembers = append(wantMembers, k.Str, k.Raw, v.Raw)
			return true
		})
		if !whole || !slices.Equal(members, wantMembers) {
			t.Fatalf("%s: whole %v, members %q, gjson %q", body, whole, members, wantMembers)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	bodies := slices.Clone(topMemberBodies)
	// Long strings dense with escaped quotes and backslashes, whose
	// escapes fall on every offset of the 64-byte blocks.
	for range 300 {
		var text []byte
		for range rng.IntN(300) {
			text = append(text, `ab"\/`[rng.IntN(5)])
		}
		lit, _ := json.Marshal(string(text))
		bodies = append(bodies, `{"input":[{"content":`+string(lit)+`},`+string(lit)+`],"k":`+string(lit)+`,"store":false,"previous_response_id":`+string(lit)+`}`)
	}
	for _, body := range bodies {
		check(body)
		for range 300 {
			b := []byte(body)
			switch {
			case len(b) == 0:
			case rng.IntN(2) == 0:
				b = b[:rng.IntN(len(b))]
			default:
				b[rng.IntN(len(b))] = `{}[]",:\ a1`[rng.IntN(11)]
			}
			check(string(b))
		}
	}
}
