package assemble

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Pos is where a chunk of rows comes from, for constant fields and
// errors.
type Pos struct {
	Path     string // the file's path, for errors
	File     string // the file's path relative to the dataset, for the trace column
	RowGroup int
	FirstRow int64 // index in the file of the chunk's first row
}

// cursor is a column's read position: the next level entry and the next
// value.
type cursor struct{ lvl, val int }

// fillFunc fills field off of rows [0, n) at base (rows stride bytes
// apart) from column c at cur, advancing cur.
type fillFunc func(c *pqcol.Column, cur *cursor, base unsafe.Pointer, stride uintptr, n int, pos *Pos) error

type field struct {
	name string // the column, for errors
	col  int    // index into the plan's leaves; -1 for constants
	off  uintptr
	fill fillFunc
}

type number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

func at[D any](base unsafe.Pointer, i int, stride, off uintptr) *D {
	return (*D)(unsafe.Add(base, uintptr(i)*stride+off))
}

// columnField plans a field that reads a file column.
func columnField(sf reflect.StructField, leaf *pqcol.Leaf, repDef int) (field, error) {
	ft := sf.Type
	f := field{off: sf.Offset}
	var err error
	switch {
	case leaf.MaxRepetitionLevel > 0:
		if ft.Kind() != reflect.Slice || ft.Elem().Kind() == reflect.Uint8 && leaf.Kind == parquet.ByteArray {
			return f, fmt.Errorf("a repeated column needs a slice field")
		}
		f.fill, err = listFill(ft.Elem(), leaf, sf.Offset, repDef)
	case ft.Kind() == reflect.Pointer:
		f.fill, err = scalarFill(ft.Elem(), leaf, sf.Offset, true)
	default:
		f.fill, err = scalarFill(ft, leaf, sf.Offset, false)
	}
	return f, err
}

// scalarFill plans a non-repeated column into a field of type t (or *t).
func scalarFill(t reflect.Type, leaf *pqcol.Leaf, off uintptr, ptr bool) (fillFunc, error) {
	get, err := getterFor(t, leaf)
	if err != nil {
		return nil, err
	}
	return get.scalar(off, leaf.MaxDefinitionLevel, ptr), nil
}

// listFill plans a repeated column into a slice field with elements of
// type t.
func listFill(t reflect.Type, leaf *pqcol.Leaf, off uintptr, repDef int) (fillFunc, error) {
	get, err := getterFor(t, leaf)
	if err != nil {
		return nil, err
	}
	return get.list(off, leaf.MaxDefinitionLevel, repDef), nil
}

// getter builds fill functions for one element type.
type getter interface {
	scalar(off uintptr, maxDef int, ptr bool) fillFunc
	list(off uintptr, maxDef, repDef int) fillFunc
}

// getterFor returns the getter for values of Go type t from leaf's
// physical type.
func getterFor(t reflect.Type, leaf *pqcol.Leaf) (getter, error) {
	k := leaf.Kind
	switch t.Kind() {
	case reflect.Bool:
		if k == parquet.Boolean {
			return loader[bool](func(c *pqcol.Column, _, _ int) func(int) bool {
				s := c.Boolean
				return func(v int) bool { return s[v] }
			}), nil
		}
	case reflect.Int:
		return intGetter[int](t, leaf)
	case reflect.Int8:
		return intGetter[int8](t, leaf)
	case reflect.Int16:
		return intGetter[int16](t, leaf)
	case reflect.Int32:
		return intGetter[int32](t, leaf)
	case reflect.Int64:
		return intGetter[int64](t, leaf)
	case reflect.Uint:
		return intGetter[uint](t, leaf)
	case reflect.Uint8:
		return intGetter[uint8](t, leaf)
	case reflect.Uint16:
		return intGetter[uint16](t, leaf)
	case reflect.Uint32:
		return intGetter[uint32](t, leaf)
	case reflect.Uint64:
		return intGetter[uint64](t, leaf)
	case reflect.Float32:
		if k == parquet.Float {
			return numGetter[float32, float32](func(c *pqcol.Column) []float32 { return c.Float }), nil
		}
	case reflect.Float64:
		switch k {
		case parquet.Double:
			return numGetter[float64, float64](func(c *pqcol.Column) []float64 { return c.Double }), nil
		case parquet.Float:
			return numGetter[float32, float64](func(c *pqcol.Column) []float32 { return c.Float }), nil
		}
	case reflect.String:
		if k == parquet.ByteArray || k == parquet.FixedLenByteArray {
			return loader[string](loadStrings), nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && (k == parquet.ByteArray || k == parquet.FixedLenByteArray) {
			return loader[[]byte](loadBytes), nil
		}
	case reflect.Struct:
		if t == timeType {
			if g, ok := timeGetter(leaf); ok {
				return g, nil
			}
			return nil, fmt.Errorf("cannot read a %s column into time.Time: want a TIMESTAMP, a DATE or an INT96 timestamp", TypeName(leaf))
		}
		if t == decimalType {
			if g, ok := decimalGetter(leaf); ok {
				return g, nil
			}
			return nil, fmt.Errorf("cannot read a %s column into decimal.Decimal: want a DECIMAL", TypeName(leaf))
		}
	}
	return nil, fmt.Errorf("cannot read a %v column into %v", k, t)
}
