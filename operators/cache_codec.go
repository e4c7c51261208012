package operators

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/rowflow/rowflow/internal/slicepool"
)

// NumbersCodec encodes rows that are slices of numbers (token lists,
// feature vectors) for a disk cache: each row's length as a uvarint, then
// every row's numbers little-endian, back to back. Decode puts a record's
// rows into one array, each row a slice of it with its capacity cut at
// its end, so that appending to a row copies it rather than overwrite the
// next; a row kept after the others are dropped keeps the whole record's
// array (up to 1024 rows) alive. An empty row decodes as nil, as with
// gob.
//
// It is faster than [GobCodec] and allocates one array of numbers per
// record instead of one per row; the slice of rows is a recycled buffer.
// [Cache] uses it by default for []int32, []int64, []float32 and slices
// of the other [FixedNumber] types.
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
