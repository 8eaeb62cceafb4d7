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
// rescanning any bytes, and escaped strings are unescaped into one Arena
// sized from that count, so a document costs one allocation for all its
// text. Consecutive events of a stream share a prefix (a text delta
// repeats what comes before its text), so Arena.IndexEvent resumes each
// event's scan on the previous event's tape where the two stop sharing
// bytes, with the result of a scan from the start (reuse.go). A decoder
// that only moves a string need not unescape it at all: the validating
// pass also finds whether a literal escapes a UTF-16 surrogate
// (Value.Copyable), so a literal that says exactly what escaping its text
// would can be copied as it is, read shallowly (Value.Shallow) and
// unescaped only if something reads it. Writing goes
// the other way: AppendString escapes text as encoding/json does, into a
// caller's buffer. SkimMembers reads the top level of a body not yet
// validated, for the member or two read before decoding.
//
// Members is the one way to walk an object or an array (an array's
// elements have empty keys): a range-over-func loop,
//
//	for key, v := range jsonx.Members(obj.Raw, a) {
//		switch key {
//		case "text":
//			text = v.Result().Str
//		}
//	}
//
// that parses a value (Value.Result) only when the loop asks for it, so a
// loop that skips most members, or keeps their raw text (Value.Raw), pays
// nothing for the others. Walk with the arena of the document being decoded
// (it holds the document's index and its unescaped strings; text that is
// not part of the indexed document, such as a stored copy, is found to be
// outside it and walked from its bytes), or with a nil arena where none is
// at hand, whose escaped strings are then allocated one by one, as gjson
// does. A scalar is yielded itself with an empty key (as
// gjson.Result.ForEach does), so a loop over a value whose type it has not
// checked sees the scalar. CountMembers counts members without reading
// them, to size a slice before the walk; Lookup reads one member of an
// object, as gjson.Get does, from the index. The input must be valid JSON:
// gjson.Result.ForEach stays only on text not known to be (bodies passed
// through unvalidated) and where a walk needs gjson's offsets or raw key
// literals.
//
// String contents are classified 64 bytes at a time into quote, backslash
// and control-byte masks (StringMasks: SSE2 on amd64, a word at a time
// elsewhere and with the purego build tag), from which the closing quote,
// the escaped bytes and any invalid byte follow without a branch per byte;
// a run of whole blocks that hold none of them (prose: descriptions,
// prompts) is skipped by one call that tests a block per branch
// (plainBlocks, the same two ways). Strings that close within a word of
// their opening quote (keys, roles, types) are checked inline with one
// word's test, and compact JSON, what APIs send, skips no whitespace.
//
// Values are handed out as gjson.Result, and gjson still reads value
// types (numbers, paths into nested values): the engine replaces gjson's
// validation, member iteration and unescaping, which allocate or rescan,
// and nothing else. Everything here assumes its input passed validation
// unless a function says otherwise.
package jsonx
