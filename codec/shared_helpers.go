package codec

import (
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// Helpers more than one protocol family uses: string arrays and approximate
// user locations, read and written.

// readStrings appends the strings of array v (null: none) to dst.
func readStrings(v gjson.Result, path string, dst []string) ([]string, *Error) {
	if v.Type == gjson.Null {
		return dst, nil
	}
	if !v.IsArray() {
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

// responsesUserLocation reads an approximate user location, as Responses
// and Anthropic spell it: {type: "approximate", city, region, country,
// timezone}.
func responsesUserLocation(v gjson.Result, path string, l *UserLocation) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType(path, "object", v)
	}
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		p := path + "." + key.Str
		var dst *string
		switch key.Str {
		case "type":
			var s string
			if s, err = readString(value, p); err == nil && s != "approximate" {
				err = invalid(p, `must be "approximate"`)
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
			err = unknownField(p)
			return false
		}
		if value.Type != gjson.Null {
			*dst, err = readString(value, p)
		}
		return err == nil
	})
	return err
}

// appendStrings appends ss as a JSON array of strings.
func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonx.AppendString(dst, s)
	}
	return append(dst, ']')
}

// appendUserLocation appends an approximate user location object, as
// Responses and Anthropic spell it.
func appendUserLocation(dst []byte, l *UserLocation) []byte {
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
