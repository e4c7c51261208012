package determinism

import (
	"encoding/binary"
	"reflect"
	"time"
	"unsafe"

	"github.com/rowflow/rowflow/rowid"
)

// The encoders of the fixed-size kinds read the value's memory directly:
// no reflection happens per value. Composite encoders call the encoders of
// their parts through the parts' codecs.

var le = binary.LittleEndian

// littleEndian says whether the machine stores integers as the encoding
// does, so that runs of fixed-size numbers can be copied as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// scalarEncoder returns the encoder of a bool, integer, float or complex
// kind, or nil for other kinds.
func scalarEncoder(t reflect.Type) encoder {
	switch t.Kind() {
	case reflect.Bool:
		return encodeBool
	case reflect.Int8, reflect.Uint8:
		return encode8
	case reflect.Int16, reflect.Uint16:
		return encode16
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		return encode32
	case reflect.Int64, reflect.Uint64, reflect.Float64:
		return encode64
	case reflect.Int:
		return encodeInt
	case reflect.Uint:
		return encodeUint
	case reflect.Uintptr:
		return encodeUintptr
	case reflect.Complex64:
		return encodeComplex64
	case reflect.Complex128:
		return encodeComplex128
	}
	return nil
}

func encodeBool(s *state, p unsafe.Pointer) {
	v := byte(0)
	if *(*bool)(p) {
		v = 1
	}
	s.b = append(s.b, v)
}

func encode8(s *state, p unsafe.Pointer)  { s.b = append(s.b, *(*uint8)(p)) }
func encode16(s *state, p unsafe.Pointer) { s.b = le.AppendUint16(s.b, *(*uint16)(p)) }
func encode32(s *state, p unsafe.Pointer) { s.b = le.AppendUint32(s.b, *(*uint32)(p)) }
func encode64(s *state, p unsafe.Pointer) { s.b = le.AppendUint64(s.b, *(*uint64)(p)) }

func encodeInt(s *state, p unsafe.Pointer)     { s.b = le.AppendUint64(s.b, uint64(int64(*(*int)(p)))) }
func encodeUint(s *state, p unsafe.Pointer)    { s.b = le.AppendUint64(s.b, uint64(*(*uint)(p))) }
func encodeUintptr(s *state, p unsafe.Pointer) { s.b = le.AppendUint64(s.b, uint64(*(*uintptr)(p))) }

func encodeComplex64(s *state, p unsafe.Pointer) {
	w := (*[2]uint32)(p)
	s.b = le.AppendUint32(le.AppendUint32(s.b, w[0]), w[1])
}

func encodeComplex128(s *state, p unsafe.Pointer) {
	w := (*[2]uint64)(p)
	s.b = le.AppendUint64(le.AppendUint64(s.b, w[0]), w[1])
}

func encodeString(s *state, p unsafe.Pointer) {
	v := *(*string)(p)
	s.b = binary.AppendUvarint(s.b, uint64(len(v)))
	s.b = append(s.b, v...)
}

func encodeTime(s *state, p unsafe.Pointer) {
	t := (*time.Time)(p)
	s.b = le.AppendUint64(s.b, uint64(t.Unix()))
	s.b = le.AppendUint32(s.b, uint32(t.Nanosecond()))
}

func encodeID(s *state, p unsafe.Pointer) {
	id := (*rowid.ID)(p)
	s.b = le.AppendUint64(le.AppendUint64(s.b, id.Lo), id.Hi)
}

// isRaw reports whether the encoding of every value of t is its memory,
// byte for byte: fixed-size numbers on a little-endian machine, and arrays
// and padding-free structs of them.
func isRaw(t reflect.Type) bool {
	if !littleEndian || hasHook(t) || t == timeType {
		return false
	}
	switch t.Kind() {
	case reflect.Int8, reflect.Uint8, reflect.Int16, reflect.Uint16,
		reflect.Int32, reflect.Uint32, reflect.Int64, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		return t.Size() == 8
	case reflect.Array:
		return isRaw(t.Elem())
	case reflect.Struct:
		var size uintptr
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Name == "_" || f.Offset != size || !isRaw(f.Type) {
				return false
			}
			size += f.Type.Size()
		}
		return size == t.Size()
	}
	return false
}

// appendRaw appends the n bytes at p.
func appendRaw(b []byte, p unsafe.Pointer, n uintptr) []byte {
	if n == 0 {
		return b
	}
	return append(b, unsafe.Slice((*byte)(p), n)...)
}

// hookEncoder encodes a value by its AppendDigest, prefixed with the
// length of what it appends.
func hookEncoder(t reflect.Type) encoder {
	return func(s *state, p unsafe.Pointer) {
		a := reflect.NewAt(t, p).Interface().(Appender)
		x := a.AppendDigest(s.scratch[:0])
		s.b = binary.AppendUvarint(s.b, uint64(len(x)))
		s.b = append(s.b, x...)
		s.scratch = x[:0]
	}
}

// sliceHeader is the memory layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (b *builder) slice(t reflect.Type) encoder {
	et := t.Elem()
	size := et.Size()
	if isRaw(et) {
		return func(s *state, p unsafe.Pointer) {
			h := (*sliceHeader)(p)
			s.b = binary.AppendUvarint(s.b, uint64(h.len))
			s.b = appendRaw(s.b, h.data, uintptr(h.len)*size)
		}
	}
	elem := b.codec(et)
	return func(s *state, p unsafe.Pointer) {
		h := (*sliceHeader)(p)
		s.b = binary.AppendUvarint(s.b, uint64(h.len))
		s.enter()
		for i := range h.len {
			elem.enc(s, unsafe.Add(h.data, uintptr(i)*size))
		}
		s.leave()
	}
}

func (b *builder) array(t reflect.Type) encoder {
	n, et := t.Len(), t.Elem()
	size := et.Size()
	switch {
	case n == 0:
		return func(*state, unsafe.Pointer) {}
	case isRaw(et):
		return func(s *state, p unsafe.Pointer) { s.b = appendRaw(s.b, p, uintptr(n)*size) }
	}
	elem := b.codec(et)
	return func(s *state, p unsafe.Pointer) {
		for i := range n {
			elem.enc(s, unsafe.Add(p, uintptr(i)*size))
		}
	}
}

func (b *builder) structure(t reflect.Type) encoder {
	if isRaw(t) {
		size := t.Size()
		return func(s *state, p unsafe.Pointer) { s.b = appendRaw(s.b, p, size) }
	}
	type field struct {
		off uintptr
		c   *codec
	}
	var fields []field
	for i := range t.NumField() {
		if f := t.Field(i); f.Name != "_" {
			fields = append(fields, field{f.Offset, b.codec(f.Type)})
		}
	}
	return func(s *state, p unsafe.Pointer) {
		for _, f := range fields {
			f.c.enc(s, unsafe.Add(p, f.off))
		}
	}
}

func (b *builder) pointer(t reflect.Type) encoder {
	elem := b.codec(t.Elem())
	return func(s *state, p unsafe.Pointer) {
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			s.b = append(s.b, 0)
			return
		}
		s.b = append(s.b, 1)
		s.enter()
		elem.enc(s, q)
		s.leave()
	}
}

// encodeInterface encodes the value an interface holds, after the name of
// its type. It uses reflection for every value.
func encodeInterface(t reflect.Type) encoder {
	return func(s *state, p unsafe.Pointer) {
		v := reflect.NewAt(t, p).Elem()
		if v.IsNil() {
			s.b = append(s.b, 0)
			return
		}
		d := v.Elem()
		c := codecOf(d.Type())
		if c.err != nil {
			panic(encodingError{c.err})
		}
		s.b = append(s.b, 1)
		s.b = binary.AppendUvarint(s.b, uint64(len(c.name)))
		s.b = append(s.b, c.name...)
		tmp := reflect.New(d.Type())
		tmp.Elem().Set(d)
		s.enter()
		c.enc(s, tmp.UnsafePointer())
		s.leave()
	}
}
