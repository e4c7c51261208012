package pqcol

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// sink points at the typed slices that decoded values are appended to: the
// exported buffers of a Column, or a dictionary's.
type sink struct {
	boolean *[]bool
	int32   *[]int32
	int64   *[]int64
	int96   *[]deprecated.Int96
	float   *[]float32
	double  *[]float64
	bytes   *[]byte
	offsets *[]uint32 // BYTE_ARRAY only; holds len+1 offsets, starting at 0
}

func (c *Column) sink() sink {
	return sink{&c.Boolean, &c.Int32, &c.Int64, &c.Int96, &c.Float, &c.Double, &c.Bytes, &c.Offsets}
}

// decodeValues decodes n values of leaf's physical type from data, encoded
// with enc (not a dictionary encoding), and appends them to s. data may hold
// more values than n (padding); the extra ones are dropped.
func decodeValues(leaf *Leaf, enc format.Encoding, data []byte, n int, s sink, scratch *scratch) error {
	if leaf.Kind == parquet.Boolean {
		return decodeBooleans(enc, data, n, s.boolean, scratch)
	}
	e := parquet.LookupEncoding(enc)
	if _, ok := e.(encoding.NotSupported); ok {
		return unsupportedf("encoding %s", enc)
	}
	if enc == format.DeltaBinaryPacked {
		switch leaf.Kind {
		case parquet.Int32:
			return appendDecoded(s.int32, n, func(dst []int32) ([]int32, error) { return decodeDelta(dst, data, n, &scratch.delta) })
		case parquet.Int64:
			return appendDecoded(s.int64, n, func(dst []int64) ([]int64, error) { return decodeDelta(dst, data, n, &scratch.delta) })
		}
	}
	if err := checkDelta(enc, data, n); err != nil {
		return err
	}
	var err error
	switch leaf.Kind {
	case parquet.Int32:
		err = appendDecoded(s.int32, n, func(dst []int32) ([]int32, error) { return e.DecodeInt32(dst, data) })
	case parquet.Int64:
		err = appendDecoded(s.int64, n, func(dst []int64) ([]int64, error) { return e.DecodeInt64(dst, data) })
	case parquet.Int96:
		err = appendDecoded(s.int96, n, func(dst []deprecated.Int96) ([]deprecated.Int96, error) { return e.DecodeInt96(dst, data) })
	case parquet.Float:
		err = appendDecoded(s.float, n, func(dst []float32) ([]float32, error) { return e.DecodeFloat(dst, data) })
	case parquet.Double:
		err = appendDecoded(s.double, n, func(dst []float64) ([]float64, error) { return e.DecodeDouble(dst, data) })
	case parquet.ByteArray:
		if enc == format.Plain {
			if data, err = plainByteArrays(data, n); err != nil {
				return err
			}
		}
		err = decodeByteArrays(enc, e, data, n, s, scratch)
	case parquet.FixedLenByteArray:
		w := leaf.TypeLength
		if enc == format.DeltaByteArray {
			if _, err := deltaByteArraySize(data, n, scratch); err != nil { // its prefixes
				return err
			}
		}
		err = appendDecoded(s.bytes, n*w, func(dst []byte) ([]byte, error) { return e.DecodeFixedLenByteArray(dst, data, w) })
	}
	return decodeError(enc, err)
}

func decodeError(enc format.Encoding, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, encoding.ErrNotSupported):
		return unsupportedf("encoding %s for this physical type: %v", enc, err)
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrTooLarge):
		return err
	}
	return corruptf("decoding %s values: %v", enc, err)
}

// appendDecoded appends n decoded values to *dst. decode receives the free
// capacity after *dst (at least n values) and, like parquet-go's decoders,
// returns the values it wrote from the start of that slice; values it
// writes in place are not copied again.
func appendDecoded[T any](dst *[]T, n int, decode func([]T) ([]T, error)) error {
	if n == 0 {
		return nil
	}
	base := len(*dst)
	buf := slices.Grow(*dst, n)
	tail := buf[base:base:cap(buf)]
	out, err := decode(tail)
	if err != nil {
		return err
	}
	if len(out) < n {
		return corruptf("decoded %d values, the page declares %d", len(out), n)
	}
	buf = buf[:base+n]
	if unsafe.SliceData(out) != unsafe.SliceData(tail) {
		copy(buf[base:], out[:n])
	}
	*dst = buf
	return nil
}

// decodeByteArrays decodes n BYTE_ARRAY values, appending their bytes and
// end offsets.
func decodeByteArrays(enc format.Encoding, e encoding.Encoding, data []byte, n int, s sink, scratch *scratch) error {
	if n == 0 {
		return nil
	}
	// PLAIN and DELTA_LENGTH_BYTE_ARRAY values are copied from the page, so
	// they take at most its size; DELTA_BYTE_ARRAY values share prefixes
	// and can take much more, so their size is computed first.
	size := len(data)
	if enc == format.DeltaByteArray {
		var err error
		if size, err = deltaByteArraySize(data, n, scratch); err != nil {
			return err
		}
	}
	base := len(*s.bytes)
	buf := slices.Grow(*s.bytes, size)
	tail := buf[base:base:cap(buf)]
	out, offs, err := e.DecodeByteArray(tail, data, scratch.offsets[:0])
	if cap(offs) > cap(scratch.offsets) {
		scratch.offsets = offs[:0]
	}
	if err != nil {
		return err
	}
	if len(offs) < n+1 {
		return corruptf("decoded %d byte arrays, the page declares %d", max(len(offs)-1, 0), n)
	}
	size = int(offs[n])
	if size > len(out) || offs[0] != 0 {
		return corruptf("byte array offsets are inconsistent with the decoded data")
	}
	for i, v := range offs[1 : n+1] {
		if v < offs[i] {
			return corruptf("byte array offsets are inconsistent with the decoded data")
		}
	}
	if int64(base)+int64(size) > math.MaxUint32 {
		return ErrTooLarge
	}
	if unsafe.SliceData(out) == unsafe.SliceData(tail) {
		buf = buf[:base+size]
	} else {
		buf = append(buf[:base], out[:size]...)
	}
	*s.bytes = buf
	o := slices.Grow(*s.offsets, n)
	for _, v := range offs[1 : n+1] {
		o = append(o, uint32(base)+v)
	}
	*s.offsets = o
	return nil
}

// decodeBooleans decodes n booleans, PLAIN (bit-packed, least significant
// bit first) or RLE (a 4-byte length, then the RLE/bit-packed hybrid of
// 1-bit values, decoded with parquet-go's level decoder).
func decodeBooleans(enc format.Encoding, data []byte, n int, dst *[]bool, scratch *scratch) error {
	base := len(*dst)
	out := slices.Grow(*dst, n)[:base+n]
	vals := out[base:]
	switch enc {
	case format.Plain:
		if int64(len(data))*8 < int64(n) {
			return corruptf("PLAIN booleans: %d bytes hold fewer than %d values", len(data), n)
		}
		for i := range vals {
			vals[i] = data[i>>3]>>(i&7)&1 != 0
		}
	case format.RLE:
		if len(data) < 4 {
			return corruptf("RLE booleans: %d bytes, want a 4-byte length", len(data))
		}
		size := binary.LittleEndian.Uint32(data)
		if int64(size) > int64(len(data)-4) {
			return corruptf("RLE booleans: %d bytes declared, %d present", size, len(data)-4)
		}
		bits, err := decodeLevels(scratch.levels[:0], format.RLE, 1, n, data[4:4+size], &scratch.runs)
		if cap(bits) > cap(scratch.levels) {
			scratch.levels = bits[:0]
		}
		if err != nil {
			return err
		}
		for i, b := range bits {
			vals[i] = b != 0
		}
	default:
		return unsupportedf("encoding %s for BOOLEAN values", enc)
	}
	*dst = out
	return nil
}

// values are typed buffers of decoded values, in a Column's layout: a
// dictionary's, and a page's when a read keeps only part of them (see
// decoder.appendValues).
type values struct {
	boolean []bool
	int32   []int32
	int64   []int64
	int96   []deprecated.Int96
	float   []float32
	double  []float64
	bytes   []byte
	offsets []uint32
}

// reset empties v.
func (v *values) reset() {
	v.boolean, v.int32, v.int64, v.int96 = v.boolean[:0], v.int32[:0], v.int64[:0], v.int96[:0]
	v.float, v.double, v.bytes, v.offsets = v.float[:0], v.double[:0], v.bytes[:0], append(v.offsets[:0], 0)
}

// sink returns a sink over v.
func (v *values) sink() sink {
	return sink{&v.boolean, &v.int32, &v.int64, &v.int96, &v.float, &v.double, &v.bytes, &v.offsets}
}

// appendRange appends values [skip, skip+keep) of src to s.
func (s sink) appendRange(leaf *Leaf, src sink, skip, keep int) error {
	switch leaf.Kind {
	case parquet.Boolean:
		*s.boolean = append(*s.boolean, (*src.boolean)[skip:skip+keep]...)
	case parquet.Int32:
		*s.int32 = append(*s.int32, (*src.int32)[skip:skip+keep]...)
	case parquet.Int64:
		*s.int64 = append(*s.int64, (*src.int64)[skip:skip+keep]...)
	case parquet.Int96:
		*s.int96 = append(*s.int96, (*src.int96)[skip:skip+keep]...)
	case parquet.Float:
		*s.float = append(*s.float, (*src.float)[skip:skip+keep]...)
	case parquet.Double:
		*s.double = append(*s.double, (*src.double)[skip:skip+keep]...)
	case parquet.FixedLenByteArray:
		w := leaf.TypeLength
		*s.bytes = append(*s.bytes, (*src.bytes)[skip*w:(skip+keep)*w]...)
	case parquet.ByteArray:
		offs := (*src.offsets)[skip : skip+keep+1]
		base := len(*s.bytes)
		if int64(base)+int64(offs[keep]-offs[0]) > math.MaxUint32 {
			return ErrTooLarge
		}
		*s.bytes = append(*s.bytes, (*src.bytes)[offs[0]:offs[keep]]...)
		o := slices.Grow(*s.offsets, keep)
		for _, v := range offs[1:] {
			o = append(o, uint32(base)+v-offs[0])
		}
		*s.offsets = o
	}
	return nil
}
