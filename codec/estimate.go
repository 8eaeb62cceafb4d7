package codec

// imageTokens is what EstimateInputTokens counts for an image, a document
// or audio: providers bill media by their size in pixels or pages, not by
// their base64 bytes, and a large image costs about this much (Claude's
// 1,568-token cap for an image of 1.15 megapixels).
const imageTokens = 1600

// bytesPerToken is the text EstimateInputTokens counts as one token:
// fewer bytes than the three to four of English text, so that the
// estimate errs high, as a reservation should.
const bytesPerToken = 3

// EstimateInputTokens returns a generous estimate of the input tokens of
// req, without a tokenizer: its text (system prompt, messages, tool
// arguments and results, tool definitions) at three bytes a token, and a
// flat count per media part. Limits reserve it before an upstream call and
// settle with the usage the upstream reports.
func EstimateInputTokens(req *Request) int64 {
	n := partsBytes(req.System)
	for i := range req.Messages {
		n += partsBytes(req.Messages[i].Parts)
	}
	for i := range req.Tools {
		t := &req.Tools[i]
		n += int64(len(t.Name) + len(t.Description) + len(t.Parameters) + len(t.Grammar))
	}
	return n/bytesPerToken + mediaTokens(req)
}

// partsBytes is the text of ps in bytes, media excluded.
func partsBytes(ps []Part) int64 {
	var n int64
	for i := range ps {
		p := &ps[i]
		switch p.Type {
		case PartImage, PartDocument, PartAudio:
			continue
		}
		n += int64(p.TextSize() + p.ArgumentsSize())
		n += partsBytes(p.Content)
	}
	return n
}

// mediaTokens is imageTokens for each media part of req.
func mediaTokens(req *Request) int64 {
	var n int64
	count := func(ps []Part) {
		for i := range ps {
			switch ps[i].Type {
			case PartImage, PartDocument, PartAudio:
				n += imageTokens
			}
			for j := range ps[i].Content {
				switch ps[i].Content[j].Type {
				case PartImage, PartDocument, PartAudio:
					n += imageTokens
				}
			}
		}
	}
	count(req.System)
	for i := range req.Messages {
		count(req.Messages[i].Parts)
	}
	return n
}
