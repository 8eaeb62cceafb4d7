package bedrock

// Converse names a media block's type by a short format (png, pdf), not a
// MIME type; these tables convert between the two for the formats Converse
// takes.

// imageFormats are the image formats of Converse with their MIME types.
var imageFormats = [...][2]string{
	{"png", "image/png"}, {"jpeg", "image/jpeg"}, {"gif", "image/gif"}, {"webp", "image/webp"},
}

// documentFormats are the document formats of Converse with their MIME
// types.
var documentFormats = [...][2]string{
	{"pdf", "application/pdf"},
	{"csv", "text/csv"},
	{"doc", "application/msword"},
	{"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{"xls", "application/vnd.ms-excel"},
	{"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	{"html", "text/html"},
	{"txt", "text/plain"},
	{"md", "text/markdown"},
}

// mimeOf returns the MIME type of format in table, or "".
func mimeOf(table [][2]string, format string) string {
	for _, f := range table {
		if f[0] == format {
			return f[1]
		}
	}
	return ""
}

// formatOf returns the Converse format of MIME type mime in table, or "".
// image/jpg, which some clients write, is jpeg.
func formatOf(table [][2]string, mime string) string {
	if mime == "image/jpg" {
		return "jpeg"
	}
	for _, f := range table {
		if f[1] == mime {
			return f[0]
		}
	}
	return ""
}
