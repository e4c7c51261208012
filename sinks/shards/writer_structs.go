package shards

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
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
// own Parquet writer (internal/parquet/pqwrite), as it writes records:
// each leaf column's values and levels are copied from the
// structs' memory into its typed column, a leaf at a time over a run of
// rows, with no per-value allocation or boxing.
//
// A leaf's values are found by following its path from the struct: the
// fields of nested structs (at fixed offsets), pointers (an optional
// group or value: nil is null), the optional tag on a value (its zero
// value is null) and slices (a repeated field or a LIST: each element is
// a repetition), as Dremel's striping assigns definition and repetition
// levels. The leaves are booleans, integers, floats, strings, []byte and
// [N]byte, time.Time in a timestamp column adjusted to UTC, and
// decimal.Decimal (a top-level field, see decimalPlan). The columns are
// those parquet-go derives from the type (parquet.SchemaOf), and so are
// the values and levels, but for a time.Time outside the range of its
// column's unit (a zero time.Time in nanoseconds), which fails the run
// where parquet-go wrote a wrapped-around number.
//
// A struct with any other column (a map, an interface, a column with
// compression or a logical type of its own) is written by parquet-go's
// GenericWriter, as it was before the writer was rowflow's:
// newStructPlan returns nil for it.
type structPlan struct {
	leaves []leafWriter // per leaf column of the struct, in order
}

// leafWriter appends the values of one leaf column of a run of structs,
// with their levels, to the leaf's typed column.
type leafWriter struct {
	name   string // the column's path, for errors
	steps  []step // from a struct to the leaf's value; a flat leaf has none
	offset uintptr
	values valuesFunc // appends the values of the leaf's Go type
	// maxRep and maxDef are the leaf's maximum levels: the column holds
	// levels of each kind only where its maximum is above 0.
	maxRep, maxDef int
}

// step is one step of a leaf's path from a struct to its value.
type step struct {
	kind   stepKind
	offset uintptr // stepField: of the field in its struct
	size   uintptr // stepSlice: of an element
	rep    int     // stepSlice: the repetition level of its elements after the first
	isZero func(p unsafe.Pointer) bool
}

// stepKind is what a step does.
type stepKind uint8

const (
	stepField   stepKind = iota // to a field of the struct
	stepPointer                 // through a pointer: nil is null
	stepZero                    // an optional value: its zero value is null
	stepSlice                   // into each element of a slice: none is null (an empty list)
)

// valuesFunc appends the n values at p, p+stride, p+2·stride… to c, and
// reports the index of the first it cannot convert.
type valuesFunc func(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error)

// fieldValuer is what parquet-go's fields of a struct's schema are: the
// field of a struct value that holds a column.
type fieldValuer interface {
	Value(base reflect.Value) reflect.Value
}

// fieldOffset returns the offset and Go type of the field of the struct
// value probe (addressable, zero) that holds column f, found by the
// schema's own mapping of columns to fields (tags, embedded structs and
// all); ok is false if f does not say, or the field lies behind an
// embedded pointer.
func fieldOffset(f parquet.Field, probe reflect.Value) (off uintptr, t reflect.Type, ok bool) {
	vf, ok := f.(fieldValuer)
	if !ok {
		return 0, nil, false
	}
	// Value allocates what a nil pointer or interface on the way to the
	// field points to, and panics for an interface: such a field is
	// not one the plan reaches at an offset.
	defer func() {
		if recover() != nil {
			off, t, ok = 0, nil, false
		}
	}()
	v, base := vf.Value(probe), probe.UnsafeAddr()
	if !v.CanAddr() || v.UnsafeAddr() < base || v.UnsafeAddr()+v.Type().Size() > base+probe.Type().Size() {
		return 0, nil, false
	}
	return v.UnsafeAddr() - base, v.Type(), true
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
	p := &structPlan{}
	b := planBuilder{schema: schema, plan: p}
	ok := b.fields(schema.Fields(), dec.typeOr(t), nil, func(off uintptr, gt reflect.Type) (uintptr, reflect.Type, *decimalField, bool) {
		if dec == nil {
			return off, gt, nil, true
		}
		return dec.field(t, off, gt)
	})
	if !ok || len(p.leaves) == 0 || len(p.leaves) != len(schema.Columns()) {
		return nil
	}
	return p
}

// planBuilder builds a structPlan, leaf by leaf in the schema's order.
type planBuilder struct {
	schema *parquet.Schema
	plan   *structPlan
	path   []string
}

// fields adds the leaves of fields, the fields of a group whose Go type
// is the struct type gt, reached by steps. where maps a field's offset
// and type in gt to where it lies in the values written, and its decimal
// column, if any: the same, but in a struct with decimals (see
// decimalPlan.field).
func (b *planBuilder) fields(fields []parquet.Field, gt reflect.Type, steps []step,
	where func(off uintptr, gt reflect.Type) (uintptr, reflect.Type, *decimalField, bool)) bool {
	if gt.Kind() != reflect.Struct || gt == reflect.TypeFor[time.Time]() || len(fields) == 0 {
		return false // a group without leaves, such as struct{}, is parquet-go's
	}
	probe := reflect.New(gt).Elem()
	for _, f := range fields {
		off, ft, ok := fieldOffset(f, probe)
		if !ok {
			return false
		}
		off, ft, dec, ok := where(off, ft)
		if !ok {
			return false
		}
		b.path = append(b.path, f.Name())
		ok = b.node(f, ft, append(slices.Clip(steps), step{kind: stepField, offset: off}), dec)
		b.path = b.path[:len(b.path)-1]
		if !ok {
			return false
		}
	}
	return true
}

// node adds the leaves of node n, whose Go type is gt, reached by steps.
func (b *planBuilder) node(n parquet.Node, gt reflect.Type, steps []step, dec *decimalField) bool {
	switch {
	case n.Optional() && gt.Kind() == reflect.Pointer:
		steps, gt = append(steps, step{kind: stepPointer}), gt.Elem()
	case n.Optional() && gt == reflect.TypeFor[time.Time]():
		// Zero as GenericWriter took it: the zero instant in any zone.
		steps = append(steps, step{kind: stepZero, isZero: func(p unsafe.Pointer) bool { return (*time.Time)(p).IsZero() }})
	case n.Optional():
		z := gt
		steps = append(steps, step{kind: stepZero, isZero: func(p unsafe.Pointer) bool { return reflect.NewAt(z, p).Elem().IsZero() }})
	case n.Repeated():
		if gt.Kind() != reflect.Slice {
			return false
		}
		steps, gt = append(steps, step{kind: stepSlice, size: gt.Elem().Size(), rep: repeats(steps) + 1}), gt.Elem()
	}
	switch {
	case n.Leaf():
		return b.leaf(n, gt, steps, dec)
	case isList(n):
		// A LIST: its repeated group is the Go slice, its element the
		// slice's element.
		list := n.Fields()[0]
		if gt.Kind() != reflect.Slice || !list.Repeated() {
			return false
		}
		steps = append(steps, step{kind: stepSlice, size: gt.Elem().Size(), rep: repeats(steps) + 1})
		b.path = append(b.path, list.Name(), list.Fields()[0].Name())
		defer func() { b.path = b.path[:len(b.path)-2] }()
		// The element node itself is not repeated: take its optionality.
		elem := list.Fields()[0]
		if elem.Repeated() {
			return false
		}
		return b.node(elem, gt.Elem(), steps, nil)
	case n.Type().LogicalType() != nil:
		return false // a MAP, or another annotated group
	}
	return b.fields(n.Fields(), gt, steps, func(off uintptr, gt reflect.Type) (uintptr, reflect.Type, *decimalField, bool) {
		return off, gt, nil, true
	})
}

// leaf adds the leaf n, whose Go type is gt, reached by steps; dec is its
// decimal column, if it is one.
func (b *planBuilder) leaf(n parquet.Node, gt reflect.Type, steps []step, dec *decimalField) bool {
	col, ok := b.schema.Lookup(b.path...)
	if !ok || col.ColumnIndex != len(b.plan.leaves) || n.Compression() != nil {
		return false
	}
	l := leafWriter{name: strings.Join(b.path, "."), maxRep: col.MaxRepetitionLevel, maxDef: col.MaxDefinitionLevel}
	switch {
	case dec == nil:
		l.values = valuesOf(gt, n.Type())
	case gt == decimalGoType && (len(steps) == 0 || steps[len(steps)-1].kind != stepZero):
		l.values = decimalValues(dec)
	}
	defs := 0
	for _, s := range steps {
		if s.kind != stepField {
			defs++
		}
	}
	if l.values == nil || repeats(steps) != l.maxRep || defs != l.maxDef {
		return false
	}
	// A leaf reached through fields alone is flat: its values lie at one
	// offset of each struct.
	if l.maxDef == 0 {
		for _, s := range steps {
			l.offset += s.offset
		}
	} else {
		l.steps = steps
	}
	b.plan.leaves = append(b.plan.leaves, l)
	return true
}

// repeats returns the number of slices on a path.
func repeats(steps []step) int {
	n := 0
	for _, s := range steps {
		if s.kind == stepSlice {
			n++
		}
	}
	return n
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
				return stringValues
			}
		}
	case reflect.Slice:
		switch lt.(type) {
		case nil, *pqformat.StringType:
			if gt.Elem().Kind() == reflect.Uint8 && k == parquet.ByteArray {
				return byteSliceValues
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

func stringValues(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
	for k := range n {
		c.AppendString(*(*string)(unsafe.Add(p, uintptr(k)*stride)))
	}
	return 0, nil
}

func byteSliceValues(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
	for k := range n {
		c.AppendBytes(*(*[]byte)(unsafe.Add(p, uintptr(k)*stride)))
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
	kind := f.typ.Kind()
	return func(c *pqwrite.Column, p unsafe.Pointer, stride uintptr, n int) (int, error) {
		for k := range n {
			u, b, err := f.encode(*(*decimal.Decimal)(unsafe.Add(p, uintptr(k)*stride)), c.Bytes)
			if err != nil {
				return k, err
			}
			switch kind {
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

// write appends the leaf's values of the n structs at base,
// base+stride… to c, with their levels, and reports the index of the
// first struct whose value it cannot convert.
func (l *leafWriter) write(c *pqwrite.Column, base unsafe.Pointer, stride uintptr, n int) (int, error) {
	if l.steps == nil {
		return l.values(c, unsafe.Add(base, l.offset), stride, n)
	}
	for k := range n {
		if err := l.walk(c, unsafe.Add(base, uintptr(k)*stride), 0, 0, 0); err != nil {
			return k, err
		}
	}
	return 0, nil
}

// walk follows the steps from step i at p, where the levels so far are
// rep and def, to the leaf's values, and appends them or the null that
// ends the path early.
func (l *leafWriter) walk(c *pqwrite.Column, p unsafe.Pointer, i, rep, def int) error {
	for ; i < len(l.steps); i++ {
		s := &l.steps[i]
		switch s.kind {
		case stepField:
			p = unsafe.Add(p, s.offset)
			continue
		case stepPointer:
			if p = *(*unsafe.Pointer)(p); p == nil {
				l.levels(c, rep, def)
				return nil
			}
		case stepZero:
			if s.isZero(p) {
				l.levels(c, rep, def)
				return nil
			}
		case stepSlice:
			h := (*sliceHeader)(p)
			if h.len == 0 {
				l.levels(c, rep, def)
				return nil
			}
			if i+1 == len(l.steps) {
				// The elements are the leaf's values.
				for range h.len {
					l.levels(c, rep, def+1)
					rep = s.rep
				}
				_, err := l.values(c, h.data, s.size, h.len)
				return err
			}
			for k := range h.len {
				if k > 0 {
					rep = s.rep
				}
				if err := l.walk(c, unsafe.Add(h.data, uintptr(k)*s.size), i+1, rep, def+1); err != nil {
					return err
				}
			}
			return nil
		}
		def++
	}
	l.levels(c, rep, def)
	_, err := l.values(c, p, 0, 1)
	return err
}

// levels appends the levels of an entry.
func (l *leafWriter) levels(c *pqwrite.Column, rep, def int) {
	if l.maxRep > 0 {
		c.RepLevels = append(c.RepLevels, byte(rep))
	}
	c.DefLevels = append(c.DefLevels, byte(def))
}

// structWriter writes structs with the typed columns, row-ID columns and
// row groups of a record writer, leaf by leaf over runs of rows that
// end where a batch of writeBatchRows rows from the row group's start
// ends, so that the row IDs are encoded over the same batches as
// records' and the bytes do not depend on how the stream was cut
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
		for j := range w.plan.leaves {
			f := &w.plan.leaves[j]
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
