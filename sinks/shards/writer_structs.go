package shards

import (
	"fmt"
	"reflect"
	"slices"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
)

// structPlan is how [Parquet] writes the structs of a type with rowflow's
// own Parquet writer (internal/parquet/pqwrite), as ParquetRecords writes
// records: each field of the struct is one leaf column, and the values of
// a run of rows are copied from the structs' memory into the leaf's typed
// column, a field at a time, with no per-value allocation or boxing.
//
// It covers structs each of whose columns is one field (at any depth of
// embedded structs) of one of these types: a boolean, an integer, a
// float, a string, a []byte, a [N]byte, a time.Time in a timestamp
// column adjusted to UTC, or a decimal.Decimal (a top-level field, see
// decimalPlan); each of them required, optional (a pointer to one, or the
// optional tag, under which the zero value is null; not for decimals) or
// repeated (a slice of them, with or without the list tag). The columns
// are those parquet-go derives from the type (parquet.SchemaOf), and so
// are the values, but for a time.Time outside the range of its column's
// unit (a zero time.Time in nanoseconds), which fails the run where
// parquet-go wrote a wrapped-around number.
//
// A struct with any other column (a nested group, a map, a slice of
// pointers, a column with compression or a logical type of its own) is
// written by parquet-go's GenericWriter, as it was before the writer was
// rowflow's: newStructPlan returns nil for it.
type structPlan struct {
	fields []fieldWriter // per leaf column of the struct, in order
}

// fieldWriter appends the values of one field of a run of structs to the
// typed column of its leaf.
type fieldWriter struct {
	name   string  // the column, for errors
	offset uintptr // of the field in the struct
	shape  fieldShape
	size   uintptr    // of a repeated field's elements
	values valuesFunc // appends the values of the field's Go type
	isZero func(p unsafe.Pointer) bool
}

// fieldShape is how a field's levels follow from its value.
type fieldShape uint8

const (
	requiredField fieldShape = iota // one value per row
	pointerField                    // a pointer: nil is null
	zeroNullField                   // optional tag: the zero value is null
	repeatedField                   // a slice: any number of values per row
)

// valuesFunc appends the n values at p, p+stride, p+2·stride… to c, and
// reports the index of the first it cannot convert.
type valuesFunc func(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error)

// fieldValuer is what parquet-go's fields of a struct's schema are: the
// field of a struct value that holds a column.
type fieldValuer interface {
	Value(base reflect.Value) reflect.Value
}

// sliceHeader is the memory layout of a Go slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// ownStructWriter is whether Parquet writes the structs that a structPlan
// covers with rowflow's writer: a variable, so that a benchmark can run
// parquet-go's GenericWriter beside it.
var ownStructWriter = true

// newStructPlan returns the plan of struct type t, whose schema is
// schema, or nil if it has a column that the plan does not cover. The
// schema is parquet.SchemaOf a value of t, or, for a struct with decimal
// fields, of dec's shadow struct, whose fields are t's exported fields in
// order, each decimal replaced by its unscaled value.
func newStructPlan(t reflect.Type, schema *parquet.Schema, dec *decimalPlan) *structPlan {
	if !ownStructWriter {
		return nil
	}
	// Find each field in the memory of a zero struct, by the schema's own
	// mapping of columns to fields (tags, embedded structs and all).
	probe := reflect.New(dec.typeOr(t)).Elem()
	base, size := probe.UnsafeAddr(), probe.Type().Size()
	p := &structPlan{}
	for _, f := range schema.Fields() {
		vf, ok := f.(fieldValuer)
		if !ok {
			return nil
		}
		v := vf.Value(probe)
		if !v.CanAddr() || v.UnsafeAddr() < base || v.UnsafeAddr()+v.Type().Size() > base+size {
			return nil // behind an embedded pointer
		}
		offset, gt, df := v.UnsafeAddr()-base, v.Type(), (*decimalField)(nil)
		if dec != nil {
			if offset, gt, df, ok = dec.field(t, offset, gt); !ok {
				return nil
			}
		}
		fw, ok := newFieldWriter(f, gt, df)
		if !ok {
			return nil
		}
		fw.name, fw.offset = f.Name(), offset
		p.fields = append(p.fields, fw)
	}
	if len(p.fields) == 0 || len(p.fields) != len(schema.Columns()) {
		return nil
	}
	return p
}

// newFieldWriter returns the writer of a field of Go type gt whose
// column's node is n, and false if the plan does not cover it; dec is the
// field's decimal column, if it is one.
func newFieldWriter(n parquet.Node, gt reflect.Type, dec *decimalField) (fieldWriter, bool) {
	fw := fieldWriter{shape: requiredField}
	leaf := n
	switch {
	case isList(n) && n.Required():
		leaf = n.Fields()[0].Fields()[0]
		if !leaf.Leaf() || !leaf.Required() || gt.Kind() != reflect.Slice {
			return fw, false
		}
		fw.shape = repeatedField
	case !n.Leaf():
		return fw, false
	case n.Repeated():
		if gt.Kind() != reflect.Slice {
			return fw, false
		}
		fw.shape = repeatedField
	case n.Optional() && gt.Kind() == reflect.Pointer:
		fw.shape = pointerField
	case n.Optional():
		fw.shape = zeroNullField
		fw.isZero = func(p unsafe.Pointer) bool { return reflect.NewAt(gt, p).Elem().IsZero() }
	}
	if fw.shape == repeatedField || fw.shape == pointerField {
		gt = gt.Elem()
		fw.size = gt.Size()
	}
	if leaf.Compression() != nil {
		return fw, false
	}
	switch {
	case dec == nil:
		fw.values = valuesOf(gt, leaf.Type())
	case gt == decimalGoType && fw.shape != zeroNullField:
		fw.values = decimalValues(dec)
	}
	return fw, fw.values != nil
}

// valuesOf returns the valuesFunc of values of Go type gt in a leaf of
// type pt, or nil if the plan does not cover them.
func valuesOf(gt reflect.Type, pt parquet.Type) valuesFunc {
	var lt pqformat.LogicalTypeValue
	if l := pt.LogicalType(); l != nil {
		lt = l.Value
	}
	k := pt.Kind()
	if gt == reflect.TypeFor[time.Time]() {
		ts, ok := lt.(*pqformat.TimestampType)
		if !ok || !ts.IsAdjustedToUTC || k != parquet.Int64 {
			return nil
		}
		return timestamps(pqschema.UnitNanos(ts.Unit))
	}
	switch gt.Kind() {
	case reflect.Bool:
		if k == parquet.Boolean && lt == nil {
			return boolValues
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if w := integers[gt.Kind()]; k == w.kind && rawInteger(lt) {
			return w.values
		}
	case reflect.Float32:
		if k == parquet.Float && lt == nil {
			return numbers[float32, float32](floats)
		}
	case reflect.Float64:
		if k == parquet.Double && lt == nil {
			return numbers[float64, float64](doubles)
		}
	case reflect.String:
		switch lt.(type) {
		case nil, *pqformat.StringType, *pqformat.EnumType:
			if k == parquet.ByteArray {
				return byteArrays[string]
			}
		}
	case reflect.Slice:
		switch lt.(type) {
		case nil, *pqformat.StringType:
			if gt.Elem().Kind() == reflect.Uint8 && k == parquet.ByteArray {
				return byteArrays[[]byte]
			}
		}
	case reflect.Array:
		switch lt.(type) {
		case nil, *pqformat.UUIDType:
			if gt.Elem().Kind() == reflect.Uint8 && k == parquet.FixedLenByteArray && pt.Length() == gt.Len() {
				return fixedValues(gt.Len())
			}
		}
	}
	return nil
}

// rawInteger reports whether an integer column of logical type lt holds
// a Go integer's value as it is, as parquet-go writes it: no logical
// type, INT(n), or a timestamp, date or time of day held in an integer.
func rawInteger(lt pqformat.LogicalTypeValue) bool {
	switch lt.(type) {
	case nil, *pqformat.IntType, *pqformat.TimestampType, *pqformat.DateType, *pqformat.TimeType:
		return true
	}
	return false
}

// integers are the valuesFuncs of Go's integer kinds, and the physical
// type that each goes to, as parquet-go maps them.
var integers = map[reflect.Kind]struct {
	kind   parquet.Kind
	values valuesFunc
}{
	reflect.Int8:    {parquet.Int32, numbers[int8, int32](int32s)},
	reflect.Int16:   {parquet.Int32, numbers[int16, int32](int32s)},
	reflect.Int32:   {parquet.Int32, numbers[int32, int32](int32s)},
	reflect.Uint8:   {parquet.Int32, numbers[uint8, int32](int32s)},
	reflect.Uint16:  {parquet.Int32, numbers[uint16, int32](int32s)},
	reflect.Uint32:  {parquet.Int32, numbers[uint32, int32](int32s)},
	reflect.Int:     {parquet.Int64, numbers[int, int64](int64s)},
	reflect.Int64:   {parquet.Int64, numbers[int64, int64](int64s)},
	reflect.Uint:    {parquet.Int64, numbers[uint, int64](int64s)},
	reflect.Uint64:  {parquet.Int64, numbers[uint64, int64](int64s)},
	reflect.Uintptr: {parquet.Int64, numbers[uintptr, int64](int64s)},
}

func int32s(c *pqwrite.Column) *[]int32    { return &c.Int32 }
func int64s(c *pqwrite.Column) *[]int64    { return &c.Int64 }
func floats(c *pqwrite.Column) *[]float32  { return &c.Float }
func doubles(c *pqwrite.Column) *[]float64 { return &c.Double }

// numeric is the Go values that numbers converts.
type numeric interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64
}

// numbers returns the valuesFunc of Go values of type G into the slice of
// P that col selects: conversions of integers wrap (a uint32 above 2³¹−1
// becomes a negative INT32, as the format stores unsigned integers).
func numbers[G, P numeric](col func(*pqwrite.Column) *[]P) valuesFunc {
	return func(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
		dst := slices.Grow(*col(c), n)
		for k := range n {
			dst = append(dst, P(*(*G)(unsafe.Add(p, uintptr(k)*stride))))
		}
		*col(c) = dst
		return 0, nil
	}
}

func boolValues(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
	for k := range n {
		c.Boolean = append(c.Boolean, *(*bool)(unsafe.Add(p, uintptr(k)*stride)))
	}
	return 0, nil
}

// byteArrays appends strings or byte slices to a BYTE_ARRAY column.
func byteArrays[S ~string | ~[]byte](c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
	if len(c.Offsets) == 0 {
		c.Offsets = append(c.Offsets, 0)
	}
	for k := range n {
		c.Bytes = append(c.Bytes, *(*S)(unsafe.Add(p, uintptr(k)*stride))...)
		c.Offsets = append(c.Offsets, uint32(len(c.Bytes)))
	}
	return 0, nil
}

// fixedValues returns the valuesFunc of [size]byte arrays.
func fixedValues(size int) valuesFunc {
	return func(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
		for k := range n {
			c.Bytes = append(c.Bytes, unsafe.Slice((*byte)(unsafe.Add(p, uintptr(k)*stride)), size)...)
		}
		return 0, nil
	}
}

// decimalValues returns the valuesFunc of decimal.Decimals in the
// column of f.
func decimalValues(f *decimalField) valuesFunc {
	return func(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
		for k := range n {
			u, b, err := f.encode(*(*decimal.Decimal)(unsafe.Add(p, uintptr(k)*stride)), c.Bytes)
			if err != nil {
				return k, err
			}
			switch f.typ.Kind() {
			case parquet.Int32:
				c.Int32 = append(c.Int32, int32(u))
			case parquet.Int64:
				c.Int64 = append(c.Int64, u)
			default:
				c.Bytes = b
			}
		}
		return 0, nil
	}
}

// timestamps returns the valuesFunc of time.Times in a timestamp column
// of units of per nanoseconds, adjusted to UTC.
func timestamps(per int64) valuesFunc {
	return func(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
		for k := range n {
			tm := *(*time.Time)(unsafe.Add(p, uintptr(k)*stride))
			v, err := instantValue(tm, per)
			if err != nil {
				return k, fmt.Errorf("%v: %w", tm, err)
			}
			c.Int64 = append(c.Int64, v.Int64())
		}
		return 0, nil
	}
}

// write appends the field of the n structs at base, base+stride… to c,
// with their levels, and reports the index of the first struct whose
// value it cannot convert.
func (f *fieldWriter) write(c *pqwrite.Column, base unsafe.Pointer, stride uintptr, n int) (int, error) {
	p := unsafe.Add(base, f.offset)
	switch f.shape {
	case requiredField:
		return f.values(c, p, stride, n)
	case repeatedField:
		for k := range n {
			s := (*sliceHeader)(unsafe.Add(p, uintptr(k)*stride))
			if s.len == 0 {
				c.RepLevels, c.DefLevels = append(c.RepLevels, 0), append(c.DefLevels, 0)
				continue
			}
			c.RepLevels = append(c.RepLevels, 0)
			for range s.len - 1 {
				c.RepLevels = append(c.RepLevels, 1)
			}
			for range s.len {
				c.DefLevels = append(c.DefLevels, 1)
			}
			if _, err := f.values(c, s.data, f.size, s.len); err != nil {
				return k, err
			}
		}
		return 0, nil
	}
	for k := range n {
		v := unsafe.Add(p, uintptr(k)*stride)
		if f.shape == pointerField {
			v = *(*unsafe.Pointer)(v)
		}
		if v == nil || f.shape == zeroNullField && f.isZero(v) {
			c.DefLevels = append(c.DefLevels, 0)
			continue
		}
		c.DefLevels = append(c.DefLevels, 1)
		if _, err := f.values(c, v, 0, 1); err != nil {
			return k, err
		}
	}
	return 0, nil
}

// structWriter writes structs with the typed columns, row-ID columns and
// row groups of a record writer, field by field over runs of rows that
// end where a batch of writeBatchRows rows from the row group's start
// ends, so that the row IDs are encoded over the same batches as
// ParquetRecords' and the bytes do not depend on how the stream was cut
// into chunks.
type structWriter[T any] struct {
	*recordWriter
	plan *structPlan
}

func (w *structWriter[T]) write(vals []T, ids flow.IDs) error {
	r := w.recordWriter
	if r.err != nil {
		return r.err
	}
	base, stride := unsafe.Pointer(unsafe.SliceData(vals)), unsafe.Sizeof(*new(T))
	for first := 0; first < len(vals); {
		n := min(len(vals)-first, writeBatchRows-r.groupRows%writeBatchRows)
		at := unsafe.Add(base, uintptr(first)*stride)
		for j := range w.plan.fields {
			f := &w.plan.fields[j]
			if k, err := f.write(r.typed[j], at, stride, n); err != nil {
				r.err = fmt.Errorf("column %q: %w", f.name, err)
				return &rowFailed{k: first + k, err: r.err}
			}
		}
		if r.ids != nil {
			r.pendIDs = ids.Slice(first, first+n).AppendTo(r.pendIDs)
		}
		first += n
		r.groupRows += n
		if err := r.endGroupIfFull(); err != nil {
			return err
		}
	}
	return nil
}
