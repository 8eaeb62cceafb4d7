// Package jsonx is the JSON engine under llmbridge's protocol codecs: it
// validates documents, walks their members, unescapes their strings and
// writes JSON strings and numbers, on the hot paths of every request,
// response and stream event, without allocating per value.
//
// Each body or stream event is read in one validating pass (Valid,
// IndexDocument, Arena.IndexEvent) that accepts exactly what encoding/json
// accepts and can also record every value and key, where it ends and
// whether it holds escapes (Index, a tape), and how many bytes of string
// literals hold escapes. Decoders then walk members from the tape without
// rescanning any bytes (MemberIter, EachMember, EachRawMember), and escaped
// strings are unescaped into one Arena sized from that count, so a document
// costs one allocation for all its text. Writing goes the other way:
// AppendString escapes text as encoding/json does, into a caller's buffer.
//
// String contents are classified 64 bytes at a time into quote, backslash
// and control-byte masks (StringMasks: SSE2 on amd64, a word at a time
// elsewhere and with the purego build tag), from which the closing quote,
// the escaped bytes and any invalid byte follow without a branch per byte.
//
// Values are handed out as gjson.Result, and gjson still reads value
// types (numbers, paths into nested values): the engine replaces gjson's
// validation, member iteration and unescaping, which allocate or rescan,
// and nothing else. Everything here assumes its input passed validation
// unless a function says otherwise.
package jsonx
