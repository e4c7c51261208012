package rowid

import (
	"encoding"
	"fmt"
)

var (
	_ fmt.Stringer             = ID{}
	_ encoding.TextAppender    = ID{}
	_ encoding.TextMarshaler   = ID{}
	_ encoding.TextUnmarshaler = (*ID)(nil)
)

// textLen is the length of the text form of an ID.
const textLen = 32

const hexDigits = "0123456789abcdef"

// String returns the text form of id: 32 lower-case hexadecimal digits, Hi
// first, then Lo, each zero-padded to 16 digits. Sorting text forms as
// strings gives the order of [ID.Compare].
func (id ID) String() string {
	var buf [textLen]byte
	return string(id.append(buf[:0]))
}

// AppendText appends the text form of id (see [ID.String]) to b and returns
// the extended slice. The error is always nil.
func (id ID) AppendText(b []byte) ([]byte, error) {
	return id.append(b), nil
}

// MarshalText returns the text form of id (see [ID.String]). The error is
// always nil. With it, an ID is a JSON string and can be a JSON object key.
func (id ID) MarshalText() ([]byte, error) {
	return id.append(make([]byte, 0, textLen)), nil
}

// UnmarshalText sets *id to the ID whose text form is text, with the rules
// of [Parse]. On error *id is left unchanged.
func (id *ID) UnmarshalText(text []byte) error {
	v, err := parse(text)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// Parse returns the ID whose text form is s: exactly 32 hexadecimal digits,
// upper or lower case, Hi first. It accepts no prefix, sign, space or
// separator. On error it returns the zero ID and an error that begins with
// "rowid: " and quotes s.
// Parse(id.String()) == id for every ID.
func Parse(s string) (ID, error) { return parse(s) }

func (id ID) append(b []byte) []byte {
	b = appendHex64(b, id.Hi)
	return appendHex64(b, id.Lo)
}

func appendHex64(b []byte, v uint64) []byte {
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[v>>uint(shift)&0xf])
	}
	return b
}

func parse[T byteString](s T) (ID, error) {
	if len(s) != textLen {
		return ID{}, fmt.Errorf("rowid: invalid ID %q: length %d, want %d hex digits", s, len(s), textLen)
	}
	var id ID
	for i := range textLen {
		d, ok := unhex(s[i])
		if !ok {
			return ID{}, fmt.Errorf("rowid: invalid ID %q: %q at offset %d is not a hex digit", s, s[i:i+1], i)
		}
		if i < textLen/2 {
			id.Hi = id.Hi<<4 | d
		} else {
			id.Lo = id.Lo<<4 | d
		}
	}
	return id, nil
}

func unhex(c byte) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint64(c - 'a' + 10), true
	case 'A' <= c && c <= 'F':
		return uint64(c - 'A' + 10), true
	}
	return 0, false
}
