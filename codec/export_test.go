package codec

import "strings"

// What the external tests read of the package's internals.

// ReportsUsage is the codec of protocol p's Codec.ReportsUsage.
func ReportsUsage(p Protocol, name, data string) bool {
	return p.Descriptor().codec.ReportsUsage(p, name, data)
}

// ForgetArgumentsLiteral makes p hold its arguments unescaped, without the
// literal they were decoded from, as decoders left them before arguments
// were kept escaped: what the literal's path is held against.
func ForgetArgumentsLiteral(p *Part) {
	args := strings.Clone(p.ArgumentsValue())
	if _, ok := p.JSONArguments(); ok {
		p.literal, p.literalOf = "", ""
	}
	p.Arguments = args
}
