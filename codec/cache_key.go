package codec

// promptCacheKeySample is how many bytes of each end of a long text the
// derived prompt cache key reads: enough to tell agents and sessions
// apart, few enough to cost well under a microsecond on an agent's 20 KB
// system prompt.
const promptCacheKeySample = 128

// AppendPromptCacheKey appends the prompt cache key llmbridge derives for
// req when a CachePolicy asks for one (OpenAI's prompt_cache_key), without
// quotes: "llmbridge-" and 16 hexadecimal digits of an FNV-1a hash of the
// conversation's identity, the end user when the client names one (Claude
// Code's user id names its session), else the system prompt and the tool
// names. The same conversation gets the same key on every turn and on
// every instance, translated or passed through; a collision only shares a
// cache route. A text is hashed as the client's JSON wrote it, escapes
// included, where the part keeps that literal (keyText): a key needs the
// bytes to be the same on every turn, which they are, not the text
// unescaped, which would cost unescaping a whole system prompt to hash
// 256 bytes of it.
func AppendPromptCacheKey(dst []byte, req *Request) []byte {
	h := fnvOffset
	if req.User != "" {
		h = fnvString(h, "u:")
		h = fnvString(h, req.User)
	} else {
		h = fnvString(h, "s:")
		for i := range req.System {
			h = fnvSample(h, req.System[i].keyText())
		}
		for i := range req.Messages {
			if m := &req.Messages[i]; m.Role == RoleSystem || m.Role == RoleDeveloper {
				for j := range m.Parts {
					h = fnvSample(h, m.Parts[j].keyText())
				}
			}
		}
		for i := range req.Tools {
			h = fnvString(h, req.Tools[i].Namespace)
			h = fnvString(h, req.Tools[i].Name)
			h = fnvString(h, "\x00")
		}
	}
	dst = append(dst, "llmbridge-"...)
	for shift := 60; shift >= 0; shift -= 4 {
		dst = append(dst, "0123456789abcdef"[h>>uint(shift)&0xf])
	}
	return dst
}

// keyText returns what identifies the part's text in a prompt cache key:
// the literal the client's JSON wrote it as, while the part keeps it, else
// the text.
func (p *Part) keyText() string {
	if raw, ok := p.JSONText(); ok {
		return raw
	}
	return p.TextValue()
}

// FNV-1a, 64 bits.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// fnvString hashes s into h.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// fnvSample hashes s's length and, for a long s, only its first and last
// promptCacheKeySample bytes into h.
func fnvSample(h uint64, s string) uint64 {
	for n, k := uint64(len(s)), 0; k < 8; k++ {
		h ^= n >> (8 * k) & 0xff
		h *= fnvPrime
	}
	if len(s) <= 2*promptCacheKeySample {
		return fnvString(h, s)
	}
	h = fnvString(h, s[:promptCacheKeySample])
	return fnvString(h, s[len(s)-promptCacheKeySample:])
}
