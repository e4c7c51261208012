package assemble

import (
	"fmt"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// constField plans a field that takes a constant.
func constField(sf reflect.StructField, c Const) (field, error) {
	f := field{name: c.Name, col: -1, off: sf.Offset}
	t := sf.Type
	switch c.Kind {
	case ConstFile:
		if t.Kind() != reflect.String {
			return f, fmt.Errorf("the file trace column %q needs a string field, not %v", c.Name, t)
		}
		f.fill = func(_ *pqcol.Column, _ *cursor, base unsafe.Pointer, stride uintptr, n int, pos *Pos) error {
			for i := range n {
				*at[string](base, i, stride, f.off) = pos.File
			}
			return nil
		}
	case ConstRowGroup, ConstRow:
		set, ok := intSetter(t)
		if !ok {
			return f, fmt.Errorf("the trace column %q needs an integer field, not %v", c.Name, t)
		}
		row := c.Kind == ConstRow
		f.fill = func(_ *pqcol.Column, _ *cursor, base unsafe.Pointer, stride uintptr, n int, pos *Pos) error {
			for i := range n {
				v := int64(pos.RowGroup)
				if row {
					v = pos.FirstRow + int64(i)
				}
				set(unsafe.Add(base, uintptr(i)*stride+f.off), v)
			}
			return nil
		}
	case ConstString:
		set, err := parsedSetter(t, c)
		if err != nil {
			return f, err
		}
		f.fill = func(_ *pqcol.Column, _ *cursor, base unsafe.Pointer, stride uintptr, n int, _ *Pos) error {
			for i := range n {
				set(unsafe.Add(base, uintptr(i)*stride+f.off))
			}
			return nil
		}
	default:
		return f, fmt.Errorf("unknown constant kind %d", c.Kind)
	}
	return f, nil
}

// intSetter returns a function storing an int64 into a field of integer
// type t.
func intSetter(t reflect.Type) (func(unsafe.Pointer, int64), bool) {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return func(p unsafe.Pointer, v int64) { *(*int64)(p) = v }, t.Size() == 8
	case reflect.Int32:
		return func(p unsafe.Pointer, v int64) { *(*int32)(p) = int32(v) }, true
	case reflect.Uint, reflect.Uint64:
		return func(p unsafe.Pointer, v int64) { *(*uint64)(p) = uint64(v) }, t.Size() == 8
	case reflect.Uint32:
		return func(p unsafe.Pointer, v int64) { *(*uint32)(p) = uint32(v) }, true
	}
	return nil, false
}

// parsedSetter parses a Hive-partition value once, into a field of type t.
func parsedSetter(t reflect.Type, c Const) (func(unsafe.Pointer), error) {
	if t.Kind() == reflect.Pointer {
		if c.Null {
			return func(p unsafe.Pointer) { *(*unsafe.Pointer)(p) = nil }, nil
		}
		set, err := parsedSetter(t.Elem(), c)
		if err != nil {
			return nil, err
		}
		// Each row gets a value of its own, so that rows do not share
		// what one of them may change.
		elem := t.Elem()
		return func(p unsafe.Pointer) {
			v := reflect.New(elem).UnsafePointer()
			set(v)
			*(*unsafe.Pointer)(p) = v
		}, nil
	}
	bad := func(err error) error {
		return fmt.Errorf("partition value %s=%q does not parse as %v: %w", c.Name, c.Value, t, err)
	}
	if t == decimalType {
		set, err := decimalConst(c.Value)
		if err != nil {
			return nil, bad(err)
		}
		return set, nil
	}
	switch t.Kind() {
	case reflect.String:
		s := c.Value
		return func(p unsafe.Pointer) { *(*string)(p) = s }, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(c.Value)
		if err != nil {
			return nil, bad(err)
		}
		return func(p unsafe.Pointer) { *(*bool)(p) = b }, nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(c.Value, t.Bits())
		if err != nil {
			return nil, bad(err)
		}
		if t.Kind() == reflect.Float32 {
			return func(p unsafe.Pointer) { *(*float32)(p) = float32(f) }, nil
		}
		return func(p unsafe.Pointer) { *(*float64)(p) = f }, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v, err := strconv.ParseInt(c.Value, 10, t.Bits())
		if err != nil {
			return nil, bad(err)
		}
		x := reflect.New(t).Elem()
		x.SetInt(v)
		return copier(t, x), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v, err := strconv.ParseUint(c.Value, 10, t.Bits())
		if err != nil {
			return nil, bad(err)
		}
		x := reflect.New(t).Elem()
		x.SetUint(v)
		return copier(t, x), nil
	}
	return nil, fmt.Errorf("partition column %q cannot fill a field of type %v", c.Name, t)
}

// copier returns a function that copies the bytes of x over a field.
func copier(t reflect.Type, x reflect.Value) func(unsafe.Pointer) {
	p := reflect.New(t)
	p.Elem().Set(x)
	src := unsafe.Slice((*byte)(p.UnsafePointer()), t.Size())
	return func(dst unsafe.Pointer) { copy(unsafe.Slice((*byte)(dst), len(src)), src) }
}
