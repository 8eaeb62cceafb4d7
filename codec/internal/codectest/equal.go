package codectest

import (
	"reflect"

	"github.com/llmbridge/llmbridge/codec"
)

// partType and requestType are the types of codec.Part and codec.Request.
var (
	partType    = reflect.TypeFor[codec.Part]()
	requestType = reflect.TypeFor[codec.Request]()
)

// EqualDecoded is reflect.DeepEqual except for the literals a decoded Part
// keeps of its text and arguments (Part.SetTextLiteral,
// Part.SetEscapedText, Part.SetEscapedArguments), which expected values do
// not spell out: a part's text is compared as Part.TextValue reads it, its
// arguments as Part.ArgumentsValue does, and the memory a decoded Request keeps for the next decode
// (Request.Scratch). Every other field, exported or not, is compared.
func EqualDecoded(a, b any) bool { return equalValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

func equalValue(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Struct:
		if a.Type() == partType && a.CanInterface() {
			// A decoded part may hold its text still escaped: what it
			// says is what Part.TextValue reads.
			pa, pb := a.Interface().(codec.Part), b.Interface().(codec.Part)
			if pa.TextValue() != pb.TextValue() || pa.ArgumentsValue() != pb.ArgumentsValue() {
				return false
			}
		}
		for i := range a.NumField() {
			switch name := a.Type().Field(i).Name; {
			case a.Type() == partType && (name == "literal" || name == "literalOf" || (name == "Text" || name == "Arguments") && a.CanInterface()),
				a.Type() == requestType && name == "scratch":
				continue
			}
			if !equalValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalValue(a.Elem(), b.Elem())
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if v := b.MapIndex(k); !v.IsValid() || !equalValue(a.MapIndex(k), v) {
				return false
			}
		}
		return true
	case reflect.Func:
		return a.IsNil() && b.IsNil()
	case reflect.Chan, reflect.UnsafePointer:
		return a.Pointer() == b.Pointer()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex()
	case reflect.String:
		return a.String() == b.String()
	}
	panic("equalDecoded: unhandled kind " + a.Kind().String())
}
