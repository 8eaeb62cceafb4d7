package wire

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// ResponsesUserLocation reads an approximate user location, as Responses
// and Anthropic spell it: {type: "approximate", city, region, country,
// timezone}.
func ResponsesUserLocation(v gjson.Result, path string, l *codec.UserLocation) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return WrongType(path, "object", v)
	}
	var err *codec.Error
	v.ForEach(func(key, value gjson.Result) bool {
		p := path + "." + key.Str
		var dst *string
		switch key.Str {
		case "type":
			var s string
			if s, err = ReadString(value, p); err == nil && s != "approximate" {
				err = codec.InvalidRequest(p, `must be "approximate"`)
			}
			return err == nil
		case "city":
			dst = &l.City
		case "region":
			dst = &l.Region
		case "country":
			dst = &l.Country
		case "timezone":
			dst = &l.Timezone
		default:
			err = UnknownField(p)
			return false
		}
		if value.Type != gjson.Null {
			*dst, err = ReadString(value, p)
		}
		return err == nil
	})
	return err
}

// AppendUserLocation appends an approximate user location object, as
// Responses and Anthropic spell it.
func AppendUserLocation(dst []byte, l *codec.UserLocation) []byte {
	dst = append(dst, `{"type":"approximate"`...)
	for _, f := range [...]struct{ k, v string }{{"city", l.City}, {"region", l.Region}, {"country", l.Country}, {"timezone", l.Timezone}} {
		if f.v != "" {
			dst = append(dst, ',', '"')
			dst = append(dst, f.k...)
			dst = append(dst, '"', ':')
			dst = jsonx.AppendString(dst, f.v)
		}
	}
	return append(dst, '}')
}
