package pqwrite

import (
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Delta encoding by data, for INT32 and INT64 columns whose neighbouring
// values are close (sequential identifiers, timestamps, offsets). A Writer
// decides per column of a file, from the column's first deltaSample
// values: a column is written DELTA_BINARY_PACKED when they take at most
// 1/deltaGain of their PLAIN size so, and PLAIN otherwise (random
// numbers, where deltas are as wide as the values). A leaf whose schema
// asks for DELTA_BINARY_PACKED is always written so.
const (
	deltaSample = 4096
	deltaGain   = 2
)

// deltaChoice is a chunkEncoder's choice of an integer column's encoding
// for its file: 0 undecided, or the encoding.
type deltaChoice format.Encoding

// encoding returns the encoding of the values of c, a Column of leaf l,
// deciding at the first chunk that holds values.
func (d *deltaChoice) encoding(c *Column, l *Leaf) (format.Encoding, error) {
	if l.Encoding != format.Plain || (l.Kind != parquet.Int32 && l.Kind != parquet.Int64) {
		return l.Encoding, nil
	}
	if *d != 0 {
		return format.Encoding(*d), nil
	}
	n := min(c.numValues(l), deltaSample)
	if n == 0 {
		return format.Plain, nil // the next chunk decides
	}
	enc, err := appendDelta(nil, c, l.Kind, 0, n)
	if err != nil {
		return 0, err
	}
	*d = deltaChoice(format.Plain)
	if len(enc)*deltaGain <= n*plainSize(c, l, 0) {
		*d = deltaChoice(format.DeltaBinaryPacked)
	}
	return format.Encoding(*d), nil
}
