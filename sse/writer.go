package sse

import "strings"

// AppendEvent appends one event to dst and returns the extended buffer:
// "event: <name>\n" (omitted when name is ""), then "data: <line>\n" for
// each line of data, then the blank line that dispatches the event.
//
// Data is split at every line end ("\n", "\r\n" or a lone "\r") into
// several data: lines, because a reader treats each of them as a line end;
// a Reader returns the data with its line ends turned into "\n", and exactly
// as given when it has no "\r". CR and LF bytes are dropped from name, which
// cannot hold them, so that no input can inject fields or events.
func AppendEvent(dst []byte, name string, data []byte) []byte {
	if name != "" {
		dst = append(dst, "event: "...)
		dst = appendStripped(dst, name)
		dst = append(dst, '\n')
	}
	dst = appendLines(dst, "data: ", data)
	return append(dst, '\n')
}

// AppendComment appends a comment to dst, ": <text>\n\n", and returns the
// extended buffer. Readers ignore comments; proxies send them to keep idle
// connections open. Text with line ends becomes one comment line per line,
// so that it can never be read as fields.
func AppendComment(dst []byte, text string) []byte {
	// Comments are rare (keep-alives): the conversion's copy is fine.
	dst = appendLines(dst, ": ", []byte(text))
	return append(dst, '\n')
}

// appendLines appends prefix+line+"\n" for each line of s, split at "\n",
// "\r\n" and "\r".
func appendLines(dst []byte, prefix string, s []byte) []byte {
	for {
		i := lineEnd(s)
		if i < 0 {
			break
		}
		dst = append(dst, prefix...)
		dst = append(dst, s[:i]...)
		dst = append(dst, '\n')
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	dst = append(dst, prefix...)
	dst = append(dst, s...)
	return append(dst, '\n')
}

// appendStripped appends s without its CR and LF bytes.
func appendStripped(dst []byte, s string) []byte {
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		s = s[i+1:]
	}
}
