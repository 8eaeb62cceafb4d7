package codec

// What the external tests read of the package's internals.

// FieldClass and its values are the field table's classes.
type FieldClass = fieldClass

// The field classes.
const (
	FieldMapped     = fieldMapped
	FieldHint       = fieldHint
	FieldCapability = fieldCapability
)

// FieldTable is the field table.
var FieldTable = fieldTable

// ReportsUsage is the codec of protocol p's Codec.ReportsUsage.
func ReportsUsage(p Protocol, name, data string) bool {
	return p.Descriptor().codec.ReportsUsage(p, name, data)
}
