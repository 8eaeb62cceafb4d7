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
members:
	for key, member := range jsonx.Members(v.Raw, nil) {
		value := member.Result()
		p := path + "." + key
		var dst *string
		switch key {
		case "type":
			var s string
			if s, err = ReadString(value, p); err == nil && s != "approximate" {
				err = codec.InvalidRequest(p, `must be "approximate"`)
			}
			if err != nil {
				break members
			}
			continue
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
			break members
		}
		if value.Type != gjson.Null {
			*dst, err = ReadString(value, p)
		}
		if err != nil {
			break
		}
	}
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
