package operators

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// NumbersCodec encodes rows that are slices of numbers (token lists,
// feature vectors) for a disk cache: each row's length as a uvarint, then
// every row's numbers little-endian, back to back. Decode puts a record's
// rows into one array, each row a slice of it with its capacity cut at its
// end, so that appending to a row copies it rather than overwrite the
// next; a row kept after the others are dropped keeps the whole record's
// array (up to 1024 rows) alive.
//
// It is faster than [GobCodec] and makes one allocation per record instead
// of one per row. [Cache] uses it by default for []int32, []int64,
// []float32 and slices of the other [FixedNumber] types.
type NumbersCodec[E FixedNumber] struct{}

// FixedNumber is a number type of a fixed size on every platform: the
// element types [NumbersCodec] encodes.
type FixedNumber interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// Append encodes rows after dst.
func (NumbersCodec[E]) Append(dst []byte, rows [][]E) ([]byte, error) {
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
func (NumbersCodec[E]) Decode(src []byte, n int) ([][]E, error) {
	size := uint64(unsafe.Sizeof(E(0)))
	lens := make([]int, n)
	var total uint64
	for i := range lens {
		l, w := binary.Uvarint(src)
		if w <= 0 || l > uint64(len(src))/size {
			return nil, fmt.Errorf("row %d of %d: bad or truncated length", i, n)
		}
		src = src[w:]
		lens[i], total = int(l), total+l
	}
	if total*size != uint64(len(src)) {
		return nil, fmt.Errorf("%d rows of %d numbers in all, in %d bytes of %d-byte numbers", n, total, len(src), size)
	}
	flat := make([]E, total)
	if _, err := binary.Decode(src, binary.LittleEndian, flat); err != nil {
		return nil, err
	}
	rows := make([][]E, n)
	off := 0
	for i, l := range lens {
		rows[i] = flat[off : off+l : off+l]
		off += l
	}
	return rows, nil
}
