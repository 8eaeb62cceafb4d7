// Package wire holds what the protocol family packages under codec/ share
// and package codec does not export: reading JSON members into the
// canonical model with errors that name the field (ReadString, WrongType,
// UnknownField, ...), parsing a body with its document index
// (ParseIndexed), the rules every codec follows for reasoning parts and
// their opaque values, hosted tools and citations, tool name flattening,
// and OpenAI's error and model list formats, which both OpenAI protocols
// use. It keeps the families from drifting apart: a rule that concerns
// more than one family is written here once.
package wire
