package operators

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// Collated is a batch of structs laid out as columns, one per field, as
// a tensor library takes them (see [Collate]). IDs are the members' row
// IDs, the zero ID for padding members.
type Collated struct {
	Columns []Column
	IDs     []rowid.ID
}

// Column is one field of a [Collated] batch, row-major in Shape. Data
// holds a slice of the field's kind as a predeclared type: []int32 for a
// field of type int32 or []int32, or of a named type on either;
// []float64, []bool, and so on. Take it with a type assertion:
// c.Data.([]int32).
//
//   - A number or bool field gives a vector: Shape is [rows], one value
//     per row; Lengths and Mask are nil.
//   - A slice of numbers gives a matrix: Shape is [rows, width], each row
//     padded as [Pad] pads it. Lengths gives each row's real length and
//     Mask marks, in Data's layout, where a real value lies (true) and
//     where padding does (false).
type Column struct {
	Name    string
	Shape   []int
	Data    any
	Lengths []int32
	Mask    []bool
}

// Column returns the column of b named name, and false if there is none.
func (b Collated) Column(name string) (Column, bool) {
	for _, c := range b.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// Collate returns a stage that turns each batch of structs ([Rows] of T,
// as [Batch], [BucketByLength] and [BucketPool] make) into one [Collated]
// batch: a [Column] per field of T, in field order. A field of a number
// or bool type becomes a vector, one value per row. A field of a slice of
// numbers becomes a matrix padded to a width of its own, as [Pad] pads a
// batch: to the field's longest row in the batch, or to a fixed length,
// rounded up to a multiple, on the right or the left, with a value of its
// own. The opts are the defaults of every slice field; a field's tag
// overrides them.
//
// # Fields and tags
//
// A `collate` tag names a field's column and says how it is padded:
//
//	InputIDs []int32  `collate:"input_ids,pad=0,left,multiple=8"`
//	Labels   []int64  `collate:"labels,pad=-100,length=512"`
//	Weight   float32  `collate:",pad=1"` // the column is named Weight
//	Source   []uint16 `collate:"-"`      // left out
//
// After the name come options, in any order: pad=V, the padding value
// (default 0; for a vector, the value of the batch's padding members);
// left or right, the side padded (default right, or left under
// [PadLeft]); multiple=K (default [PadMultiple], or 1); length=N (default
// [PadLength], or none). An empty name, or no tag, names the column after
// the field's `parquet` tag, or else its Go name, so that a struct read
// by sources/parquet.Read collates with no tags at all.
// The option tokens belongs to [PackFields], which reads the same tags;
// Collate refuses it.
//
// Exported fields of the types above need no tag. Fields of other types
// (strings, pointers, arrays, maps, structs, embedded ones too, slices of
// bools or of other types) and unexported fields are left out; tagging
// one is an error. So are a T that is not a struct, a T with no field to
// collate, two fields of one column name, an unknown tag option, a
// side, multiple or length on a field that is not a slice, and a pad
// value that the field's type cannot hold. Collate reads T's fields once, when it is built, and keeps
// such an error as the stage's error: the pipeline fails before it runs.
//
// The item keeps its ID and partition number, and Collated.IDs are the
// batch's [Rows.IDs]. Padding members ([Rows.Padding]) become rows of
// length 0 in every matrix and take the pad value in every vector.
// Collate works on one batch at a time and may run on several workers; a
// batch costs a copy of each field, with no reflection per row. A row
// longer than its field's fixed length fails the run, naming the column,
// the partition and the row.
func Collate[T any](opts ...PadOption) flow.Stage {
	op := &collateOp[T]{cfg: shapeConfig{name: "collate", padMult: 1}}
	op.err = configure(&op.cfg, opts)
	if op.err == nil {
		op.fields, op.err = collateFields(reflect.TypeFor[T](), op.cfg)
	}
	return flow.NewStage[Rows[T], Collated](op)
}

// collateField is one column of Collate: where its field lies in T and
// how it is laid out.
type collateField struct {
	name   string
	off    uintptr
	kind   reflect.Kind // of the field, or of its elements for a slice
	list   bool         // a slice of numbers
	pad    string       // the padding value, as written
	left   bool
	mult   int
	length int
	tokens bool // tagged as the tokens that decide the packing
	put    columnFunc
	pack   packFunc // the field's column in a packed row, for a slice
}

// columnFunc makes a field's column from the n structs at rows, stride
// bytes apart, of which the last padding are padding members; ids names
// a row too long for the field's fixed length.
type columnFunc func(rows unsafe.Pointer, stride uintptr, n, padding int, ids []rowid.ID) (Column, error)

// collateFields reads the fields of t that Collate makes columns of, or
// PackFields if def is its configuration.
func collateFields(t reflect.Type, def shapeConfig) ([]collateField, error) {
	stage := "collate"
	if def.name == "packfields" {
		stage = def.name
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("operators: %s: %v is not a struct", stage, t)
	}
	var fields []collateField
	names := map[string]string{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("collate")
		kind, list := collateKind(sf.Type)
		switch {
		case tag == "-", !tagged && (!sf.IsExported() || kind == reflect.Invalid):
			continue
		case !sf.IsExported():
			return nil, fmt.Errorf("operators: %s: field %s of %v is tagged but not exported", stage, sf.Name, t)
		case kind == reflect.Invalid:
			return nil, fmt.Errorf("operators: %s: field %s of %v is tagged but its type %v is not a number, a bool or a slice of numbers", stage, sf.Name, t, sf.Type)
		}
		f := collateField{name: columnName(sf), off: sf.Offset, kind: kind, list: list,
			pad: "0", left: def.padLeft, mult: def.padMult, length: def.padLength}
		err := f.parseTag(tag)
		if err == nil && f.tokens && stage == "collate" {
			err = fmt.Errorf("tag option \"tokens\": only PackFields takes it")
		}
		if err == nil {
			f.put, err = f.column()
		}
		if err != nil {
			return nil, fmt.Errorf("operators: %s: field %s of %v: %w", stage, sf.Name, t, err)
		}
		if other, ok := names[f.name]; ok {
			return nil, fmt.Errorf("operators: %s: fields %s and %s of %v both make column %q", stage, other, sf.Name, t, f.name)
		}
		names[f.name] = sf.Name
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("operators: %s: %v has no field of a number, a bool or a slice of numbers", stage, t)
	}
	return fields, nil
}

// collateKind returns the kind of a field that Collate takes, and whether
// it is a slice; reflect.Invalid for a field it does not take.
func collateKind(t reflect.Type) (reflect.Kind, bool) {
	list := t.Kind() == reflect.Slice
	if list {
		t = t.Elem()
	}
	switch k := t.Kind(); k {
	case reflect.Bool:
		if !list {
			return k, false
		}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint,
		reflect.Float32, reflect.Float64:
		return k, list
	}
	return reflect.Invalid, false
}

// columnName is a field's column name without a collate tag: its parquet
// tag's name, or its Go name.
func columnName(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("parquet"), ",")
	if name == "" || name == "-" {
		return sf.Name
	}
	return name
}

// parseTag applies a collate tag to f.
func (f *collateField) parseTag(tag string) error {
	parts := strings.Split(tag, ",")
	if parts[0] != "" {
		f.name = parts[0]
	}
	for _, o := range parts[1:] {
		key, val, hasVal := strings.Cut(o, "=")
		if key == "tokens" && !hasVal && f.list {
			f.tokens = true
			continue
		}
		if key != "pad" && !f.list {
			return fmt.Errorf("tag option %q: only pad= applies to a field that is not a slice", o)
		}
		var err error
		switch {
		case key == "pad" && hasVal && val != "":
			f.pad = val
		case (key == "left" || key == "right") && !hasVal:
			f.left = key == "left"
		case key == "multiple" && hasVal:
			f.mult, err = atLeastOne(val)
		case key == "length" && hasVal:
			f.length, err = atLeastOne(val)
		default:
			return fmt.Errorf("tag option %q: want pad=V, left, right, multiple=K or length=N", o)
		}
		if err != nil {
			return fmt.Errorf("tag option %q: %w", o, err)
		}
	}
	return nil
}

func atLeastOne(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number of at least 1", s)
	}
	return n, nil
}

// String describes f for the stage's settings.
func (f *collateField) String() string {
	s := fmt.Sprintf("%s:%v pad=%s", f.name, f.kind, f.pad)
	if f.list {
		s = fmt.Sprintf("%s:[]%v pad=%s left=%t multiple=%d length=%d", f.name, f.kind, f.pad, f.left, f.mult, f.length)
	}
	return s
}

// column returns the function that makes f's column, typed by its kind.
func (f *collateField) column() (columnFunc, error) {
	switch f.kind {
	case reflect.Bool:
		pad, err := strconv.ParseBool(f.pad)
		if err != nil {
			return nil, fmt.Errorf("pad=%s: not a bool", f.pad)
		}
		return vectorColumn(f.off, pad), nil
	case reflect.Int8:
		return numberColumn[int8](f)
	case reflect.Int16:
		return numberColumn[int16](f)
	case reflect.Int32:
		return numberColumn[int32](f)
	case reflect.Int64:
		return numberColumn[int64](f)
	case reflect.Int:
		return numberColumn[int](f)
	case reflect.Uint8:
		return numberColumn[uint8](f)
	case reflect.Uint16:
		return numberColumn[uint16](f)
	case reflect.Uint32:
		return numberColumn[uint32](f)
	case reflect.Uint64:
		return numberColumn[uint64](f)
	case reflect.Uint:
		return numberColumn[uint](f)
	case reflect.Float32:
		return numberColumn[float32](f)
	case reflect.Float64:
		return numberColumn[float64](f)
	}
	return nil, fmt.Errorf("kind %v", f.kind) // collateKind let no other kind through
}

func numberColumn[E Number](f *collateField) (columnFunc, error) {
	pad, err := parseNumber[E](f.pad)
	if err != nil {
		return nil, fmt.Errorf("pad=%s: not a value of %v", f.pad, f.kind)
	}
	if f.list {
		f.pack = packColumn(f.off, pad)
		return listColumn(f, pad), nil
	}
	return vectorColumn(f.off, pad), nil
}

// parseNumber parses s as a value of E: a decimal integer, or a float as
// strconv.ParseFloat reads it.
func parseNumber[E Number](s string) (E, error) {
	switch t := reflect.TypeFor[E](); t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		v, err := strconv.ParseInt(s, 10, t.Bits())
		return E(v), err
	case reflect.Float32, reflect.Float64:
		v, err := strconv.ParseFloat(s, t.Bits())
		return E(v), err
	default:
		v, err := strconv.ParseUint(s, 10, t.Bits())
		return E(v), err
	}
}

// vectorColumn copies a number or bool field at offset off.
func vectorColumn[E Number | ~bool](off uintptr, pad E) columnFunc {
	return func(rows unsafe.Pointer, stride uintptr, n, padding int, _ []rowid.ID) (Column, error) {
		data := make([]E, n)
		real := max(n-padding, 0)
		for i := range real {
			data[i] = *(*E)(unsafe.Add(rows, uintptr(i)*stride+off))
		}
		fill(data[real:], pad)
		return Column{Shape: []int{n}, Data: data}, nil
	}
}

// listColumn pads a slice field as Pad pads a batch.
func listColumn[E Number](f *collateField, pad E) columnFunc {
	off, left, mult, length := f.off, f.left, f.mult, f.length
	return func(rows unsafe.Pointer, stride uintptr, n, padding int, ids []rowid.ID) (Column, error) {
		lines := make([][]E, n)
		for i := range max(n-padding, 0) {
			lines[i] = *(*[]E)(unsafe.Add(rows, uintptr(i)*stride+off))
		}
		b, bad := padRows(lines, padding, pad, left, mult, length)
		if bad >= 0 {
			return Column{}, fmt.Errorf("member %d (row %s) has %d values, more than its length %d", bad, ids[bad], len(lines[bad]), length)
		}
		return Column{Shape: []int{n, b.Shape[1]}, Data: b.Data, Lengths: b.Lengths, Mask: b.Mask}, nil
	}
}

type collateOp[T any] struct {
	fields []collateField
	cfg    shapeConfig
	err    error
}

func (p *collateOp[T]) Info() flow.Info {
	cols := make([]string, len(p.fields))
	for i := range p.fields {
		cols[i] = p.fields[i].String()
	}
	return flow.Info{Name: p.cfg.name, Settings: p.cfg.settings(fmt.Sprintf("columns=[%s]", strings.Join(cols, ", ")))}
}

// Err reports a bad option or a field Collate cannot take.
func (p *collateOp[T]) Err() error { return p.err }

func (p *collateOp[T]) NewProcessor(flow.Env) flow.Processor[Rows[T], Collated] {
	if p.err != nil {
		return failed[Rows[T], Collated]{p.err}
	}
	return &collateProc[T]{op: p}
}

type collateProc[T any] struct {
	op *collateOp[T]
	passThrough[Collated]
}

func (p *collateProc[T]) Process(ctx context.Context, c flow.Chunk[Rows[T]], out flow.Emitter[Collated]) (err error) {
	dst := slicepool.Alloc[Collated](len(c.Values))
	k := 0
	defer guard(&c, &k, &err)
	for ; k < len(c.Values); k++ {
		b, err := p.op.collate(c.Values[k])
		if err != nil {
			slicepool.Recycle(dst)
			return flow.ErrorAt(&c, k, err)
		}
		dst = append(dst, b)
	}
	slicepool.Recycle(c.Values)
	return out.Push(ctx, flow.Chunk[Collated]{Part: c.Part, IDs: c.IDs, Values: dst, End: c.End})
}

// collate makes the columns of one batch.
func (p *collateOp[T]) collate(r Rows[T]) (Collated, error) {
	n := len(r.Values)
	var rows unsafe.Pointer
	if n > 0 {
		rows = unsafe.Pointer(&r.Values[0])
	}
	var zero T
	stride := unsafe.Sizeof(zero)
	b := Collated{Columns: make([]Column, len(p.fields)), IDs: r.IDs}
	for j := range p.fields {
		f := &p.fields[j]
		col, err := f.put(rows, stride, n, r.Padding, r.IDs)
		if err != nil {
			return Collated{}, fmt.Errorf("operators: collate: column %s: %w", f.name, err)
		}
		col.Name = f.name
		b.Columns[j] = col
	}
	return b, nil
}
