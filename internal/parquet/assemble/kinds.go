package assemble

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// The table of Parquet types and Go kinds. A column of a physical type
// (and, for integers, the width and signedness of its logical or
// converted type) goes into the Go kinds that hold every value it can
// have; any other field kind is refused when a file's plan is made:
//
//	BOOLEAN                       bool
//	INT32, INT(8|16|32, signed)   int8…int64, int, from the declared width up
//	INT32, INT(8|16|32, unsigned) uint8…uint64, uint from the width up;
//	                              int16…int64, int above the width
//	INT64, INT(64, signed)        int64, int
//	INT64, INT(64, unsigned)      uint64, uint
//	FLOAT                         float32, float64
//	DOUBLE                        float64
//	BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY  string, []byte
//
// Records and column batches hold each column as its [Natural] kind: the
// first of each row (int32 for INT32 of any signed width, uint32 for
// unsigned INT32, int64, uint64, float32, float64, string for text and
// []byte for other byte arrays).

// IntType returns the width and signedness of an integer column: those of
// its logical or converted type, or of its physical type. ok is false for
// columns that are not INT32 or INT64.
func IntType(leaf *pqcol.Leaf) (bits int, signed, ok bool) {
	switch leaf.Kind {
	case parquet.Int32:
		bits = 32
	case parquet.Int64:
		bits = 64
	default:
		return 0, false, false
	}
	t := leaf.Node.Type()
	if lt := t.LogicalType(); lt != nil {
		if it, ok := lt.Value.(*pqformat.IntType); ok && int(it.BitWidth) <= bits && it.BitWidth > 0 {
			return int(it.BitWidth), it.IsSigned, true
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Int8:
			return 8, true, true
		case deprecated.Int16:
			return 16, true, true
		case deprecated.Uint8:
			return 8, false, true
		case deprecated.Uint16:
			return 16, false, true
		case deprecated.Uint32:
			return 32, false, bits >= 32
		case deprecated.Uint64:
			return 64, false, bits == 64
		}
	}
	return bits, true, true
}

// Unsigned reports whether a column holds unsigned integers.
func Unsigned(leaf *pqcol.Leaf) bool {
	_, signed, ok := IntType(leaf)
	return ok && !signed
}

// TypeName describes a column's type in errors: its physical type, and
// its logical type if it has one.
func TypeName(leaf *pqcol.Leaf) string {
	s := leaf.Kind.String()
	if lt := leaf.Node.Type().LogicalType(); lt != nil && lt.Value != nil {
		s += " " + lt.String()
	}
	return s
}

// intFits reports whether a Go integer kind holds every value of an
// integer column of the given width and signedness.
func intFits(k reflect.Kind, bits int, signed bool) bool {
	var fbits int
	var fsigned bool
	switch k {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		fsigned = true
	}
	switch k {
	case reflect.Int8, reflect.Uint8:
		fbits = 8
	case reflect.Int16, reflect.Uint16:
		fbits = 16
	case reflect.Int32, reflect.Uint32:
		fbits = 32
	default:
		fbits = 64
	}
	if signed {
		return fsigned && fbits >= bits
	}
	return !fsigned && fbits >= bits || fsigned && fbits > bits
}

// intGetter reads an integer column into fields of the integer type D,
// which must hold every value of the column (see the table above); the
// bits of unsigned columns are read as unsigned.
func intGetter[D number](t reflect.Type, leaf *pqcol.Leaf) (getter, error) {
	bits, signed, ok := IntType(leaf)
	switch {
	case !ok:
		return nil, fmt.Errorf("cannot read a %v column into %v", leaf.Kind, t)
	case !intFits(t.Kind(), bits, signed):
		return nil, fmt.Errorf("%v does not hold every value of the column", t)
	case leaf.Kind == parquet.Int32 && signed:
		return numGetter[int32, D](func(c *pqcol.Column) []int32 { return c.Int32 }), nil
	case leaf.Kind == parquet.Int32:
		return numGetter[uint32, D](func(c *pqcol.Column) []uint32 { return asUnsigned[int32, uint32](c.Int32) }), nil
	case signed:
		return numGetter[int64, D](func(c *pqcol.Column) []int64 { return c.Int64 }), nil
	}
	return numGetter[uint64, D](func(c *pqcol.Column) []uint64 { return asUnsigned[int64, uint64](c.Int64) }), nil
}

// asUnsigned views the two's complement integers s as unsigned ones of
// the same width.
func asUnsigned[S int32 | int64, U uint32 | uint64](s []S) []U {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
