package operators

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"unsafe"

	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// codec encodes the values of a disk cache ([OnDisk]). Append appends the
// encoding of vals to dst; Decode decodes what one Append wrote, n values.
// Decode must not keep src, nor return values that point into it: the
// cache reads the next record into the same memory.
type codec[T any] interface {
	Append(dst []byte, vals []T) ([]byte, error)
	Decode(src []byte, n int) ([]T, error)
}

// codecOf returns the codec of a disk cache of T: numbersCodec for
// unnamed slices of fixed-size numbers, else gob.
func codecOf[T any]() codec[T] {
	var c any = gobCodec[T]{}
	switch any(*new(T)).(type) {
	case []int8:
		c = numbersCodec[int8]{}
	case []int16:
		c = numbersCodec[int16]{}
	case []int32:
		c = numbersCodec[int32]{}
	case []int64:
		c = numbersCodec[int64]{}
	case []uint8:
		c = numbersCodec[uint8]{}
	case []uint16:
		c = numbersCodec[uint16]{}
	case []uint32:
		c = numbersCodec[uint32]{}
	case []uint64:
		c = numbersCodec[uint64]{}
	case []float32:
		c = numbersCodec[float32]{}
	case []float64:
		c = numbersCodec[float64]{}
	}
	return c.(codec[T])
}

// gobCodec encodes values with encoding/gob, one gob stream per record (up
// to 1024 values), so that each record decodes on its own: a resumed run
// starts at any record. Each stream carries its type's description, which
// for small records costs more than the values. It handles what gob
// handles: exported fields, no channels or functions; and it gives back
// what gob gives back, which is not always the value encoded, since gob
// leaves out the fields that hold a zero value: a struct's float field
// that is -0 comes back as +0, a pointer field to a zero value (0, "",
// false) as nil, and an empty slice field as nil.
type gobCodec[T any] struct{}

// Append gob-encodes vals after dst.
func (gobCodec[T]) Append(dst []byte, vals []T) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	if err := gob.NewEncoder(b).Encode(vals); err != nil {
		return dst, err
	}
	return b.Bytes(), nil
}

// Decode gob-decodes n values.
func (gobCodec[T]) Decode(src []byte, n int) ([]T, error) {
	vals := make([]T, 0, n) // not a recycled buffer: gob leaves fields it does not send as they were
	if err := gob.NewDecoder(bytes.NewReader(src)).Decode(&vals); err != nil {
		return nil, err
	}
	if len(vals) != n {
		return nil, fmt.Errorf("%d values, want %d", len(vals), n)
	}
	return vals, nil
}

// numbersCodec encodes rows that are slices of numbers (token lists,
// feature vectors): each row's length as a uvarint, then every row's
// numbers little-endian, back to back. Decode puts a record's rows into
// one array, each row a slice of it with its capacity cut at its end, so
// that appending to a row copies it rather than overwrite the next; a row
// kept after the others are dropped keeps the whole record's array (up to
// 1024 rows) alive. An empty row decodes as nil, as with gob.
//
// It is faster than gobCodec and allocates one array of numbers per
// record instead of one per row; the slice of rows is a recycled buffer.
type numbersCodec[E fixedNumber] struct{}

// fixedNumber is a number type of a fixed size on every platform: the
// element types numbersCodec encodes.
type fixedNumber interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// Append encodes rows after dst.
func (numbersCodec[E]) Append(dst []byte, rows [][]E) ([]byte, error) {
	for _, r := range rows {
		dst = binary.AppendUvarint(dst, uint64(len(r)))
	}
	for _, r := range rows {
		var err error
		if dst, err = binary.Append(dst, binary.LittleEndian, r); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// Decode decodes n rows.
func (numbersCodec[E]) Decode(src []byte, n int) ([][]E, error) {
	if n < 0 {
		return nil, fmt.Errorf("%d rows", n)
	}
	size := uint64(unsafe.Sizeof(E(0)))
	// The lengths are read twice: to check them and their total before
	// anything is allocated, then to cut the rows. The total stays within
	// the record's size, so it cannot overflow.
	var total uint64
	data := src
	for i := range n {
		l, w := binary.Uvarint(data)
		if w <= 0 {
			return nil, fmt.Errorf("row %d of %d: bad or truncated length", i, n)
		}
		if total += l; l > uint64(len(src)) || total > uint64(len(src))/size {
			return nil, fmt.Errorf("row %d of %d: lengths of more numbers than the record holds", i, n)
		}
		data = data[w:]
	}
	if total*size != uint64(len(data)) {
		return nil, fmt.Errorf("%d rows of %d numbers in all, in %d bytes of %d-byte numbers", n, total, len(data), size)
	}
	flat := make([]E, total)
	if _, err := binary.Decode(data, binary.LittleEndian, flat); err != nil {
		return nil, err
	}
	rows := slicepool.Alloc[[]E](n)[:n]
	off := 0
	for i := range rows {
		l, w := binary.Uvarint(src)
		src = src[w:]
		if rows[i] = nil; l > 0 {
			rows[i] = flat[off : off+int(l) : off+int(l)]
		}
		off += int(l)
	}
	return rows, nil
}
