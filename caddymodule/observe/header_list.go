package observe

import "strings"

// maxHeaderList bounds a header that lists what a request or its answer
// lost or had changed (Llmbridge-Dropped, Llmbridge-Adjusted,
// Llmbridge-Dropped-Output): a long history can drop a hint per message
// (cache_control), and response headers must stay small.
const maxHeaderList = 2048

// HeaderList joins items with ", " for one of the headers that list what a
// request or its answer lost or had changed, ending with "..." when the
// list would be longer than 2 KiB.
func HeaderList(items []string) string {
	var b strings.Builder
	for i, p := range items {
		if b.Len()+len(p)+2 > maxHeaderList {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p)
	}
	return b.String()
}
