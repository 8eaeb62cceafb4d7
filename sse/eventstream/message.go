package eventstream

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// The binary format of a message, as AWS specifies it: a prelude (the
// message's total length and its headers' length, big-endian uint32s,
// then the CRC32 of those 8 bytes), the headers, the payload, and the
// CRC32 of everything before it. CRCs are IEEE's, as hash/crc32's
// ChecksumIEEE computes them.
const (
	// preludeLen is the length of a message's prelude: its total
	// length, its headers' length and the prelude's CRC, 4 bytes each.
	preludeLen = 12
	// minMessageLen is the length of a message without headers or
	// payload: the prelude and the message CRC.
	minMessageLen = preludeLen + 4
	// maxHeaderValueLen is the longest string or bytes header value an
	// encoder writes (its length is a uint16 the format keeps below
	// 2^15); a decoder takes any length the uint16 says.
	maxHeaderValueLen = 1<<15 - 1
)

// The type tags of header values, and the length of a fixed-size value
// (-1: a uint16 length, then as many bytes).
const (
	typeTrue      = 0
	typeFalse     = 1
	typeByte      = 2
	typeShort     = 3
	typeInt       = 4
	typeLong      = 5
	typeBytes     = 6
	typeString    = 7
	typeTimestamp = 8
	typeUUID      = 9
)

// valueLen is the length of a header value of each type after its tag.
var valueLen = [...]int{
	typeTrue: 0, typeFalse: 0, typeByte: 1, typeShort: 2, typeInt: 4, typeLong: 8,
	typeBytes: -1, typeString: -1, typeTimestamp: 8, typeUUID: 16,
}

// The ways a message of acceptable length can be malformed.
var (
	errPreludeCRC  = errors.New("prelude checksum mismatch")
	errMessageCRC  = errors.New("message checksum mismatch")
	errHeadersLen  = errors.New("the headers' length exceeds the message")
	errHeaderCut   = errors.New("a header is cut off by the end of the headers")
	errHeaderType  = errors.New("a header value of unknown type")
	errNoEventType = errors.New("an event without its :event-type")
)

// fields are the headers of a message that say what it is. Each is the
// value of the last header of its name, or empty when that header is
// missing or its value is not a string.
type fields struct {
	messageType, eventType, exceptionType, errorCode, errorMessage []byte
}

// parseMessage checks message msg, whose prelude gives len(msg) as its
// total length, and returns its headers and payload. It accepts and
// refuses what aws-sdk-go-v2's decoder does: CRCs that do not match, a
// headers' length beyond the message, a header cut short and an unknown
// value type are refused; header names and values are not otherwise
// checked. Every slice returned points into msg.
func parseMessage(msg []byte) (f fields, payload []byte, err error) {
	prelude := crc32.ChecksumIEEE(msg[:8])
	if binary.BigEndian.Uint32(msg[8:]) != prelude {
		return f, nil, errPreludeCRC
	}
	headersLen := uint64(binary.BigEndian.Uint32(msg[4:]))
	if headersLen > uint64(len(msg)-minMessageLen) {
		return f, nil, errHeadersLen
	}
	end := len(msg) - 4
	if binary.BigEndian.Uint32(msg[end:]) != crc32.Update(prelude, crc32.IEEETable, msg[8:end]) {
		return f, nil, errMessageCRC
	}
	h := msg[preludeLen : preludeLen+int(headersLen)]
	for len(h) > 0 {
		n := int(h[0])
		h = h[1:]
		if n > 0 && len(h) == 0 {
			// A name's length as the headers' last byte: aws-sdk-go-v2
			// reads it as the end of the headers (its reader's EOF
			// before the name), and so do the SDKs' clients.
			break
		}
		if len(h) < n+1 {
			return f, nil, errHeaderCut
		}
		name, typ := h[:n], h[n]
		h = h[n+1:]
		if int(typ) >= len(valueLen) {
			return f, nil, errHeaderType
		}
		vl, off := valueLen[typ], 0
		if vl < 0 {
			if len(h) < 2 {
				return f, nil, errHeaderCut
			}
			vl, off = int(binary.BigEndian.Uint16(h)), 2
		}
		if len(h) < off+vl {
			return f, nil, errHeaderCut
		}
		var value []byte
		if typ == typeString {
			value = h[off : off+vl]
		}
		h = h[off+vl:]
		if dst := f.field(name); dst != nil {
			*dst = value
		}
	}
	return f, msg[preludeLen+int(headersLen) : end], nil
}

// field returns where f keeps the header name, or nil for a header that
// does not say what a message is.
func (f *fields) field(name []byte) *[]byte {
	switch string(name) {
	case ":message-type":
		return &f.messageType
	case ":event-type":
		return &f.eventType
	case ":exception-type":
		return &f.exceptionType
	case ":error-code":
		return &f.errorCode
	case ":error-message":
		return &f.errorMessage
	}
	return nil
}

// startMessage appends the start of a message to dst: room for its
// prelude, then its three string headers (the kind header, the name
// header and a JSON :content-type) in the order aws-sdk-go-v2's encoder
// would write them. The caller appends the payload and calls endMessage
// with start, the message's offset in dst, and headersLen.
func startMessage[T string | []byte](dst []byte, kind, nameHeader string, name T) (out []byte, start, headersLen int) {
	start = len(dst)
	dst = append(dst, make([]byte, preludeLen)...)
	dst = appendStringHeader(dst, ":message-type", kind)
	dst = appendStringHeader(dst, nameHeader, name)
	dst = appendStringHeader(dst, ":content-type", "application/json")
	return dst, start, len(dst) - start - preludeLen
}

// appendStringHeader appends a header of string type; value is at most
// maxHeaderValueLen bytes and name at most 255.
func appendStringHeader[T string | []byte](dst []byte, name string, value T) []byte {
	dst = append(dst, byte(len(name)))
	dst = append(dst, name...)
	dst = append(dst, typeString)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(value)))
	return append(dst, value...)
}

// endMessage fills in the prelude of the message that starts at start in
// dst and runs to its end, with headersLen bytes of headers, and appends
// the message's CRC.
func endMessage(dst []byte, start, headersLen int) []byte {
	m := dst[start:]
	binary.BigEndian.PutUint32(m, uint32(len(m)+4))
	binary.BigEndian.PutUint32(m[4:], uint32(headersLen))
	prelude := crc32.ChecksumIEEE(m[:8])
	binary.BigEndian.PutUint32(m[8:], prelude)
	return binary.BigEndian.AppendUint32(dst, crc32.Update(prelude, crc32.IEEETable, m[8:]))
}
