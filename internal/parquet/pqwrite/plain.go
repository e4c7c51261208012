package pqwrite

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/delta"

	"github.com/parquet-go/parquet-go"
)

// appendPlain appends values [from, to) of c, of physical type k, to dst in
// the PLAIN encoding.
func appendPlain(dst []byte, c *Column, l *Leaf, from, to int) []byte {
	if from == to {
		return dst // a page of nulls; a BYTE_ARRAY column of none has no Offsets
	}
	le := binary.LittleEndian
	switch l.Kind {
	case parquet.Boolean:
		return appendBits(dst, c.Boolean[from:to])
	case parquet.Int32:
		dst = slices.Grow(dst, 4*(to-from))
		for _, v := range c.Int32[from:to] {
			dst = le.AppendUint32(dst, uint32(v))
		}
	case parquet.Int64:
		dst = slices.Grow(dst, 8*(to-from))
		for _, v := range c.Int64[from:to] {
			dst = le.AppendUint64(dst, uint64(v))
		}
	case parquet.Float:
		dst = slices.Grow(dst, 4*(to-from))
		for _, v := range c.Float[from:to] {
			dst = le.AppendUint32(dst, math.Float32bits(v))
		}
	case parquet.Double:
		dst = slices.Grow(dst, 8*(to-from))
		for _, v := range c.Double[from:to] {
			dst = le.AppendUint64(dst, math.Float64bits(v))
		}
	case parquet.ByteArray:
		off := c.Offsets[from : to+1]
		dst = slices.Grow(dst, 4*(to-from)+int(off[len(off)-1]-off[0]))
		for i := range to - from {
			v := c.Bytes[off[i]:off[i+1]]
			dst = le.AppendUint32(dst, uint32(len(v)))
			dst = append(dst, v...)
		}
	case parquet.FixedLenByteArray, parquet.Int96:
		dst = append(dst, c.Bytes[from*l.Width:to*l.Width]...)
	}
	return dst
}

// appendBits appends booleans bit-packed, least significant bit first, as
// the PLAIN encoding of BOOLEAN has them.
func appendBits(dst []byte, bs []bool) []byte {
	for i := 0; i < len(bs); i += 8 {
		var b byte
		for j, v := range bs[i:min(i+8, len(bs))] {
			if v {
				b |= 1 << j
			}
		}
		dst = append(dst, b)
	}
	return dst
}

// plainSize returns the size in bytes of value i of c in the PLAIN
// encoding; booleans count one byte, as an upper bound.
func plainSize(c *Column, l *Leaf, i int) int {
	switch l.Kind {
	case parquet.Int32, parquet.Float:
		return 4
	case parquet.Int64, parquet.Double:
		return 8
	case parquet.ByteArray:
		return 4 + int(c.Offsets[i+1]-c.Offsets[i])
	case parquet.FixedLenByteArray, parquet.Int96:
		return l.Width
	}
	return 1
}

// deltaEncoding is parquet-go's DELTA_BINARY_PACKED encoder, which keeps
// no state between calls.
var deltaEncoding delta.BinaryPackedEncoding

// appendDelta appends values [from, to) of c, an INT32 or INT64 column,
// DELTA_BINARY_PACKED.
func appendDelta(dst []byte, c *Column, k parquet.Kind, from, to int) ([]byte, error) {
	var enc []byte
	var err error
	n := len(dst)
	if k == parquet.Int32 {
		enc, err = deltaEncoding.EncodeInt32(dst[n:], c.Int32[from:to])
	} else {
		enc, err = deltaEncoding.EncodeInt64(dst[n:], c.Int64[from:to])
	}
	if err != nil {
		return dst, fmt.Errorf("encoding values DELTA_BINARY_PACKED: %w", err)
	}
	return append(dst, enc...), nil
}
