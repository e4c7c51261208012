package pqwrite

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

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
		vs := c.Boolean[from:to]
		lo, hi := !slices.Contains(vs, false), slices.Contains(vs, true)
		b.min, b.max = []byte{boolByte(lo)}, []byte{boolByte(hi)}
	case parquet.Int32:
		lo, hi := intBounds[int32, uint32](c.Int32[from:to], l.Unsigned)
		b.min, b.max = le.AppendUint32(nil, lo), le.AppendUint32(nil, hi)
	case parquet.Int64:
		lo, hi := intBounds[int64, uint64](c.Int64[from:to], l.Unsigned)
		b.min, b.max = le.AppendUint64(nil, lo), le.AppendUint64(nil, hi)
	case parquet.Float:
		lo, hi := floatMinMax(c.Float[from:to])
		b.min, b.max = le.AppendUint32(nil, math.Float32bits(lo)), le.AppendUint32(nil, math.Float32bits(hi))
	case parquet.Double:
		lo, hi := floatMinMax(c.Double[from:to])
		b.min, b.max = le.AppendUint64(nil, math.Float64bits(lo)), le.AppendUint64(nil, math.Float64bits(hi))
	case parquet.ByteArray, parquet.FixedLenByteArray, parquet.Int96:
		lo, hi := byteValue(c, l, from), byteValue(c, l, from)
		for i := from + 1; i < to; i++ {
			v := byteValue(c, l, i)
			if compareEncoded(v, lo, l) < 0 {
				lo = v
			}
			if compareEncoded(v, hi, l) > 0 {
				hi = v
			}
		}
		b.min, b.max = bytes.Clone(lo), bytes.Clone(hi)
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

// byteValue returns value i of c, a column of byte arrays of leaf l.
func byteValue(c *Column, l *Leaf, i int) []byte {
	if l.Width > 0 {
		return c.Bytes[i*l.Width : (i+1)*l.Width]
	}
	return c.Bytes[c.Offsets[i]:c.Offsets[i+1]]
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// intBounds returns the least and greatest of vs, which is not empty, as
// the bits of U: ordered as signed integers, or, if unsigned, as the
// unsigned integers of the same bits (U is the unsigned type of S's
// width).
func intBounds[S int32 | int64, U uint32 | uint64](vs []S, unsigned bool) (lo, hi U) {
	if unsigned {
		return intMinMax(unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(vs))), len(vs)))
	}
	l, h := intMinMax(vs)
	return U(l), U(h)
}

// intMinMax returns the least and greatest of vs, which is not empty.
func intMinMax[T int32 | int64 | uint32 | uint64](vs []T) (lo, hi T) {
	lo, hi = vs[0], vs[0]
	for _, v := range vs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// floatMinMax returns the least and greatest of vs, which is not empty,
// leaving NaNs out unless all are NaN. A zero bound is -0.0 as a minimum
// and +0.0 as a maximum, whichever zeros vs holds, as the format asks of
// writers, so that a reader can rely on the bounds' signs.
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
	if lo == 0 {
		lo = T(math.Copysign(0, -1))
	}
	if hi == 0 {
		hi = 0 // +0.0, though the largest value may be -0.0
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
	case parquet.Int96:
		// As parquet-go orders them: a signed 96-bit integer (the
		// format leaves INT96's order undefined, and readers ignore it).
		if c := cmp.Compare(int32(le.Uint32(a[8:])), int32(le.Uint32(b[8:]))); c != 0 {
			return c
		}
		if c := cmp.Compare(le.Uint32(a[4:]), le.Uint32(b[4:])); c != 0 {
			return c
		}
		return cmp.Compare(le.Uint32(a), le.Uint32(b))
	}
	if l.Decimal {
		return compareTwosComplement(a, b)
	}
	return bytes.Compare(a, b) // BOOLEAN, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY
}

// compareTwosComplement compares two big-endian two's complement
// integers, of any lengths (DECIMALs in byte arrays). The empty one is 0.
func compareTwosComplement(a, b []byte) int {
	neg := func(v []byte) bool { return len(v) > 0 && v[0]&0x80 != 0 }
	na, nb := neg(a), neg(b)
	switch {
	case na && !nb:
		return -1
	case !na && nb:
		return 1
	}
	// Same sign: extend the shorter to the longer's length with its sign
	// byte, then the bytes order as unsigned.
	ext := byte(0)
	if na {
		ext = 0xFF
	}
	n := max(len(a), len(b))
	for i := range n {
		x, y := ext, ext
		if j := i - (n - len(a)); j >= 0 {
			x = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			y = b[j]
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return 0
}
