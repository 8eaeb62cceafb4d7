package codec

// What the external tests read of the package's internals.

// ReportsUsage is the codec of protocol p's Codec.ReportsUsage.
func ReportsUsage(p Protocol, name, data string) bool {
	return p.Descriptor().codec.ReportsUsage(p, name, data)
}
