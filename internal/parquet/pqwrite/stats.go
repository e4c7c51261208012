package pqwrite

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"

	"github.com/parquet-go/parquet-go"
)

// bounds are the least and greatest values of a page or a column chunk,
// PLAIN-encoded without a length prefix, as statistics and the column
// index hold them. They follow the leaf's column order: integers signed
// unless Leaf.Unsigned, byte arrays as unsigned bytes, false before true.
// Floating-point NaNs are left out unless every value is NaN, in which
// case both bounds are NaN, as parquet-go writes them.
type bounds struct {
	min, max []byte
	ok       bool // whether there was a value
}

// boundsOf returns the bounds of values [from, to) of c.
func boundsOf(c *Column, l *Leaf, from, to int) bounds {
	if from == to {
		return bounds{}
	}
	le := binary.LittleEndian
	var b bounds
	b.ok = true
	switch l.Kind {
	case parquet.Boolean:
		lo, hi := minMax(c.Boolean[from:to], func(x, y bool) bool { return !x && y })
		b.min, b.max = []byte{boolByte(lo)}, []byte{boolByte(hi)}
	case parquet.Int32:
		less := func(x, y int32) bool { return x < y }
		if l.Unsigned {
			less = func(x, y int32) bool { return uint32(x) < uint32(y) }
		}
		lo, hi := minMax(c.Int32[from:to], less)
		b.min, b.max = le.AppendUint32(nil, uint32(lo)), le.AppendUint32(nil, uint32(hi))
	case parquet.Int64:
		less := func(x, y int64) bool { return x < y }
		if l.Unsigned {
			less = func(x, y int64) bool { return uint64(x) < uint64(y) }
		}
		lo, hi := minMax(c.Int64[from:to], less)
		b.min, b.max = le.AppendUint64(nil, uint64(lo)), le.AppendUint64(nil, uint64(hi))
	case parquet.Float:
		lo, hi := floatMinMax(c.Float[from:to])
		b.min, b.max = le.AppendUint32(nil, math.Float32bits(lo)), le.AppendUint32(nil, math.Float32bits(hi))
	case parquet.Double:
		lo, hi := floatMinMax(c.Double[from:to])
		b.min, b.max = le.AppendUint64(nil, math.Float64bits(lo)), le.AppendUint64(nil, math.Float64bits(hi))
	case parquet.ByteArray:
		lo, hi := from, from
		for i := from + 1; i < to; i++ {
			v := c.Bytes[c.Offsets[i]:c.Offsets[i+1]]
			if bytes.Compare(v, byteValue(c, lo)) < 0 {
				lo = i
			}
			if bytes.Compare(v, byteValue(c, hi)) > 0 {
				hi = i
			}
		}
		b.min, b.max = bytes.Clone(byteValue(c, lo)), bytes.Clone(byteValue(c, hi))
		if b.min == nil {
			b.min = []byte{}
		}
		if b.max == nil {
			b.max = []byte{}
		}
	}
	return b
}

// merge widens b to cover o.
func (b *bounds) merge(o bounds, l *Leaf) {
	switch {
	case !o.ok:
		return
	case !b.ok, isNaN(b.min, l.Kind) && !isNaN(o.min, l.Kind):
		*b = o
		return
	case isNaN(o.min, l.Kind):
		return
	}
	if compareEncoded(o.min, b.min, l) < 0 {
		b.min = o.min
	}
	if compareEncoded(o.max, b.max, l) > 0 {
		b.max = o.max
	}
}

func byteValue(c *Column, i int) []byte { return c.Bytes[c.Offsets[i]:c.Offsets[i+1]] }

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// minMax returns the least and greatest of vs, which is not empty.
func minMax[T any](vs []T, less func(x, y T) bool) (lo, hi T) {
	lo, hi = vs[0], vs[0]
	for _, v := range vs[1:] {
		if less(v, lo) {
			lo = v
		}
		if less(hi, v) {
			hi = v
		}
	}
	return lo, hi
}

// floatMinMax returns the least and greatest of vs, which is not empty,
// leaving NaNs out unless all are NaN.
func floatMinMax[T float32 | float64](vs []T) (lo, hi T) {
	i := 0
	for i < len(vs) && vs[i] != vs[i] {
		i++
	}
	if i == len(vs) {
		return vs[0], vs[0]
	}
	lo, hi = vs[i], vs[i]
	for _, v := range vs[i+1:] {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// isNaN reports whether an encoded bound is a floating-point NaN.
func isNaN(v []byte, k parquet.Kind) bool {
	switch k {
	case parquet.Float:
		f := math.Float32frombits(binary.LittleEndian.Uint32(v))
		return f != f
	case parquet.Double:
		return math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(v)))
	}
	return false
}

// compareEncoded compares two encoded values of leaf l in its column order.
func compareEncoded(a, b []byte, l *Leaf) int {
	le := binary.LittleEndian
	switch l.Kind {
	case parquet.Int32:
		if l.Unsigned {
			return cmp.Compare(le.Uint32(a), le.Uint32(b))
		}
		return cmp.Compare(int32(le.Uint32(a)), int32(le.Uint32(b)))
	case parquet.Int64:
		if l.Unsigned {
			return cmp.Compare(le.Uint64(a), le.Uint64(b))
		}
		return cmp.Compare(int64(le.Uint64(a)), int64(le.Uint64(b)))
	case parquet.Float:
		return cmp.Compare(math.Float32frombits(le.Uint32(a)), math.Float32frombits(le.Uint32(b)))
	case parquet.Double:
		return cmp.Compare(math.Float64frombits(le.Uint64(a)), math.Float64frombits(le.Uint64(b)))
	}
	return bytes.Compare(a, b) // BOOLEAN and BYTE_ARRAY
}
