package text

import (
	"fmt"
	"unicode/utf8"
)

// encoding/csv makes every field of a record before it checks their
// number, some 40 bytes of memory per field: a record of nothing but
// delimiters, within the 64 MiB of a record, would take gigabytes. The fast path
// reads only records that fit in its read buffer; for what encoding/csv
// reads (the header, and a part from the first record the fast path does
// not take), a fieldGuard follows the bytes as the part's reader takes
// them, splits them into records and fields as encoding/csv will, and
// cuts the stream before the delimiter that gives a record more fields
// than it allows. The run then fails with a LineError for that record.

// maxHeaderFields is the most columns a CSV header may have.
const maxHeaderFields = 1 << 20

// maxExtraFields is how many fields past the header's a record may have
// and still be reported as a record with the wrong number of fields,
// which sources.SkipBad skips, rather than fail the run: at least as many
// again as the header's, and 1024.
func maxExtraFields(n int) int { return max(n, 1024) }

// fieldGuard states: where in a record the last byte left the reader.
const (
	atFieldStart = iota // at the start of a field
	inField             // in a field that is not quoted
	inQuotes            // in a quoted field
	afterQuote          // after a quote in a quoted field: its end, or the first of two
)

type fieldGuard struct {
	comma   byte // the delimiter, or its first byte if it is longer
	max     int  // fields allowed per record; 0 when not guarding
	fields  int  // fields of the record being read so far
	state   uint8
	tripped int // the bound a record went past; 0 if none has
}

func newFieldGuard(comma rune) *fieldGuard {
	b := make([]byte, utf8.UTFMax)
	utf8.EncodeRune(b, comma)
	return &fieldGuard{comma: b[0], fields: 1}
}

// guard starts guarding records of at most max fields, from a record's
// start; buffered is what the reader holds already, which it follows
// without cutting.
func (g *fieldGuard) guard(max int, buffered []byte) {
	g.max = 0
	g.newRecord()
	g.scan(buffered)
	g.max = max
}

// err is the error of a record with too many fields.
func (g *fieldGuard) err() error {
	return fmt.Errorf("a record of more than %d fields", g.tripped)
}

// delimiter counts a delimiter outside quotes, which starts a field, and
// reports whether the record now has more fields than the guard allows.
func (g *fieldGuard) delimiter() bool {
	g.fields++
	g.state = atFieldStart
	if g.max > 0 && g.fields > g.max {
		g.tripped = g.max
		return true
	}
	return false
}

// newRecord starts a record, at a newline outside quotes.
func (g *fieldGuard) newRecord() { g.fields, g.state = 1, atFieldStart }

// scan follows b and returns how many of its bytes may be read: all, or
// those before the delimiter that gives a record more than max fields.
// A delimiter longer than a byte is counted by its first byte, which may
// count a few fields too many but never too few.
func (g *fieldGuard) scan(b []byte) int {
	comma := g.comma
	for i, c := range b {
		switch g.state {
		case atFieldStart, inField:
			switch c {
			case comma:
				if g.delimiter() {
					return i
				}
			case '\n':
				g.newRecord()
			case '"':
				if g.state == atFieldStart {
					g.state = inQuotes
				}
			default:
				g.state = inField
			}
		case inQuotes:
			if c == '"' {
				g.state = afterQuote
			}
		case afterQuote:
			switch c {
			case '"':
				g.state = inQuotes
			case comma:
				if g.delimiter() {
					return i
				}
			case '\n':
				g.newRecord()
			case '\r':
			default:
				g.state = inField // encoding/csv fails the record; its line ends it
			}
		}
	}
	return len(b)
}
