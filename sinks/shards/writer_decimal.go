package shards

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
)

// Decimal fields of [Parquet]'s structs.
//
// parquet-go cannot reflect a decimal.Decimal (its fields are
// unexported), and its decimal tag takes int32, int64 and byte arrays
// only. So a struct with decimal fields is written as a shadow struct
// type: the same fields, tags and order, each decimal field replaced by
// the integer or byte array of its unscaled value, from which parquet-go
// derives the schema and writes the rows. The values are converted row by
// row through parquet-go's dynamic rows, as for RowIDColumn.

var decimalGoType = reflect.TypeFor[decimal.Decimal]()

// maxDecimalPrecision is the widest decimal written: DuckDB, Spark and
// Arrow's decimal128 read up to 38 digits.
const maxDecimalPrecision = 38

// decimalField is a top-level decimal field of T and its column.
type decimalField struct {
	name             string  // the Go name, for errors
	off              uintptr // offset in T
	ptr              bool    // *decimal.Decimal: nil is null
	dst              int     // index of the field in the shadow struct
	precision, scale int
	typ              parquet.Type // the physical type of the column
}

// decimalPlan is how the structs of a type with decimal fields are
// written: nil for a type without any.
type decimalPlan struct {
	shadow reflect.Type    // the struct written, with integers for decimals
	schema *parquet.Schema // its schema, named as T's would be
	copies [][2]int        // other fields: index in T, index in the shadow
	fields []decimalField
}

// newDecimalPlan returns the plan of struct type t, nil if t has no
// decimal field, or an error naming a decimal field that cannot be
// written: one without a decimal(scale:precision) option in its parquet
// tag, with a precision above 38, or inside a slice, map or nested struct.
func newDecimalPlan(t reflect.Type) (*decimalPlan, error) {
	p := &decimalPlan{}
	var fields []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		ft := f.Type
		ptr := ft.Kind() == reflect.Pointer
		if ptr {
			ft = ft.Elem()
		}
		if ft != decimalGoType {
			if path, where, ok := nestedDecimal(f.Type, map[reflect.Type]bool{}); ok {
				return nil, fmt.Errorf("shards: Parquet[%v]: field %s: a decimal.Decimal in a %s is not written (only a top-level decimal.Decimal or *decimal.Decimal field is)", t, f.Name+path, where)
			}
			p.copies = append(p.copies, [2]int{i, len(fields)})
			fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag, Anonymous: f.Anonymous})
			continue
		}
		precision, scale, err := decimalTag(f.Tag.Get("parquet"))
		if err != nil {
			return nil, fmt.Errorf("shards: Parquet[%v]: field %s %w", t, f.Name, err)
		}
		// The unscaled value's Go type, from which parquet-go makes the
		// column: INT32 to 9 digits, INT64 to 18, then the fewest bytes
		// that hold the precision, as DuckDB and Spark write them.
		var st reflect.Type
		switch {
		case precision <= 9:
			st = reflect.TypeFor[int32]()
		case precision <= 18:
			st = reflect.TypeFor[int64]()
		default:
			st = reflect.ArrayOf(decimalSize(precision), reflect.TypeFor[byte]())
		}
		if ptr {
			st = reflect.PointerTo(st)
		}
		p.fields = append(p.fields, decimalField{name: f.Name, off: f.Offset, ptr: ptr, dst: len(fields), precision: precision, scale: scale})
		fields = append(fields, reflect.StructField{Name: f.Name, Type: st, Tag: f.Tag})
	}
	if len(p.fields) == 0 {
		return nil, nil
	}
	p.shadow = reflect.StructOf(fields)
	p.schema = parquet.NewSchema(t.Name(), parquet.SchemaOf(reflect.New(p.shadow).Interface()))
	// The decimals' columns, found by the schema's own mapping of columns
	// to fields: an embedded struct's fields come before the fields after
	// it.
	probe := reflect.New(p.shadow).Elem()
	for _, c := range p.schema.Fields() {
		off, _, ok := fieldOffset(c, probe)
		if !ok || !c.Leaf() {
			continue
		}
		for i := range p.fields {
			if f := &p.fields[i]; p.shadow.Field(f.dst).Offset == off {
				f.typ = c.Type()
			}
		}
	}
	for i := range p.fields {
		f := &p.fields[i]
		if f.typ == nil {
			return nil, fmt.Errorf("shards: Parquet[%v]: field %s: parquet-go made no column of it", t, f.name)
		}
		if f.precision > 18 && f.typ.Length() != decimalSize(f.precision) {
			return nil, fmt.Errorf("shards: Parquet[%v]: field %s: parquet-go made a column of %d bytes for DECIMAL(%d,%d), not %d", t, f.name, f.typ.Length(), f.precision, f.scale, decimalSize(f.precision))
		}
	}
	return p, nil
}

// schemaOr returns the schema of the shadow struct, or zero's if p is
// nil.
func (p *decimalPlan) schemaOr(zero any) *parquet.Schema {
	if p == nil {
		return parquet.SchemaOf(zero)
	}
	return p.schema
}

// typeOr returns the shadow struct type, or t if p is nil.
func (p *decimalPlan) typeOr(t reflect.Type) reflect.Type {
	if p == nil {
		return t
	}
	return p.shadow
}

// field returns where the field of the shadow struct at offset off, of
// Go type gt, lies in t: its offset and Go type, and its decimal column
// if it is one; ok is false if off is in none of the shadow's fields.
func (p *decimalPlan) field(t reflect.Type, off uintptr, gt reflect.Type) (_ uintptr, _ reflect.Type, _ *decimalField, ok bool) {
	for i := range p.shadow.NumField() {
		sf := p.shadow.Field(i)
		if off < sf.Offset || off >= sf.Offset+max(sf.Type.Size(), 1) {
			continue
		}
		for k := range p.fields {
			if f := &p.fields[k]; f.dst == i {
				if f.ptr {
					return f.off, reflect.PointerTo(decimalGoType), f, true
				}
				return f.off, decimalGoType, f, true
			}
		}
		for _, c := range p.copies {
			if c[1] == i {
				// A field of an embedded struct lies as far into it in both.
				return t.Field(c[0]).Offset + off - sf.Offset, gt, nil, true
			}
		}
	}
	return 0, nil, nil, false
}

// decimalTag returns the precision and scale of a decimal field's parquet
// tag: its option decimal(scale:precision), in parquet-go's order.
func decimalTag(tag string) (precision, scale int, err error) {
	_, opts, _ := strings.Cut(tag, ",")
	for opt := range strings.SplitSeq(opts, ",") {
		args, ok := strings.CutPrefix(opt, "decimal(")
		if !ok {
			continue
		}
		s, p, ok := strings.Cut(strings.TrimSuffix(args, ")"), ":")
		scale, err1 := strconv.Atoi(s)
		precision, err2 := strconv.Atoi(p)
		if !ok || !strings.HasSuffix(args, ")") || err1 != nil || err2 != nil || precision < 1 || precision > maxDecimalPrecision || scale < 0 || scale > precision {
			return 0, 0, fmt.Errorf("has the option %s; want decimal(scale:precision) with a precision from 1 to %d and a scale from 0 to the precision", opt, maxDecimalPrecision)
		}
		return precision, scale, nil
	}
	return 0, 0, fmt.Errorf("is a decimal.Decimal without a decimal(scale:precision) option in its parquet tag (decimal(2:10) is a DECIMAL(10,2))")
}

// decimalSize is the number of bytes of a FIXED_LEN_BYTE_ARRAY that holds
// every unscaled value of a precision and its sign, as parquet-go sizes
// the column of a decimal tag (newDecimalPlan checks that they agree).
func decimalSize(precision int) int {
	return int(math.Ceil((math.Log10(2) + float64(precision)) / math.Log10(256)))
}

// nestedDecimal finds a decimal.Decimal inside a field of type t that is
// not itself one: its path below the field and what holds it.
func nestedDecimal(t reflect.Type, seen map[reflect.Type]bool) (path, where string, ok bool) {
	switch t.Kind() {
	case reflect.Pointer:
		return nestedDecimal(t.Elem(), seen)
	case reflect.Slice, reflect.Array:
		if e := t.Elem(); e == decimalGoType || e.Kind() == reflect.Pointer && e.Elem() == decimalGoType {
			return "", "slice", true
		}
		return nestedDecimal(t.Elem(), seen)
	case reflect.Map:
		if e := t.Elem(); e == decimalGoType || e.Kind() == reflect.Pointer && e.Elem() == decimalGoType {
			return "", "map", true
		}
		return nestedDecimal(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return "", "", false
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if ft := f.Type; ft == decimalGoType || ft.Kind() == reflect.Pointer && ft.Elem() == decimalGoType {
				return "." + f.Name, "nested struct", true
			}
			if path, where, ok := nestedDecimal(f.Type, seen); ok {
				return "." + f.Name + path, where, true
			}
		}
	}
	return "", "", false
}

// unscaled64 is unscaled for the common values whose coefficient and
// unscaled value fit an int64, without big.Int arithmetic: ok is false
// for the others.
func (f *decimalField) unscaled64(d decimal.Decimal) (u int64, ok bool, err error) {
	n := d.NumDigits()
	if n > 18 {
		return 0, false, nil
	}
	u = d.CoefficientInt64()
	if u == 0 {
		return 0, true, nil
	}
	shift := int(d.Exponent()) + f.scale
	switch {
	case shift > 0:
		if n+shift > f.precision {
			return 0, true, f.tooWide(d)
		}
		if n+shift > 18 {
			return 0, false, nil
		}
		u *= pow10i[shift]
	case shift < 0:
		if -shift > 18 {
			return 0, false, nil
		}
		if u%pow10i[-shift] != 0 {
			return 0, true, f.tooPrecise(d)
		}
		u /= pow10i[-shift]
	}
	if f.precision <= 18 && (u >= pow10i[f.precision] || u <= -pow10i[f.precision]) {
		return 0, true, f.tooWide(d)
	}
	return u, true, nil
}

// encode returns d's unscaled value in the column's physical type: the
// integer of an INT32 or INT64 column, or, for a FIXED_LEN_BYTE_ARRAY,
// b with the value's big-endian two's complement appended.
func (f *decimalField) encode(d decimal.Decimal, b []byte) (int64, []byte, error) {
	u, fast, err := f.unscaled64(d)
	if err != nil {
		return 0, b, err
	}
	if !fast {
		big, err := f.unscaled(d)
		if err != nil {
			return 0, b, err
		}
		if f.typ.Kind() != parquet.FixedLenByteArray {
			return big.Int64(), b, nil
		}
		v, err := decimalValue(big, f.typ)
		return 0, append(b, v.ByteArray()...), err
	}
	if f.typ.Kind() == parquet.FixedLenByteArray {
		n := len(b)
		b = append(b, make([]byte, f.typ.Length())...)
		for i := len(b) - 1; i >= n; i-- {
			b[i], u = byte(u), u>>8 // the sign extended
		}
	}
	return u, b, nil
}

// pow10i holds 10^0 … 10^18.
var pow10i = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// unscaled returns d times 10^scale, which must be an integer of at most
// precision digits: a value that does not fit is an error, never rounded.
func (f *decimalField) unscaled(d decimal.Decimal) (*big.Int, error) {
	u := d.Coefficient()
	if u.Sign() == 0 {
		return u, nil
	}
	shift := int64(d.Exponent()) + int64(f.scale)
	switch {
	case shift > int64(f.precision):
		return nil, f.tooWide(d)
	case shift > 0:
		u.Mul(u, pow10(shift))
	case shift < 0:
		// More places than the scale: the value fits only if the digits
		// past the scale are zeros. A nonzero |u| below 10^-shift has
		// a nonzero remainder, and 10^-shift need not be computed.
		if float64(u.BitLen()-1)*0.30103 < float64(-shift)-1 {
			return nil, f.tooPrecise(d)
		}
		var r big.Int
		if u.QuoRem(u, pow10(-shift), &r); r.Sign() != 0 {
			return nil, f.tooPrecise(d)
		}
	}
	if u.CmpAbs(pow10(int64(f.precision))) >= 0 {
		return nil, f.tooWide(d)
	}
	return u, nil
}

func (f *decimalField) tooWide(d decimal.Decimal) error {
	return fmt.Errorf("field %s: %s has more than the %d digits of DECIMAL(%d,%d)", f.name, decimalText(d), f.precision, f.precision, f.scale)
}

func (f *decimalField) tooPrecise(d decimal.Decimal) error {
	return fmt.Errorf("field %s: %s has more than the %d decimal places of DECIMAL(%d,%d)", f.name, decimalText(d), f.scale, f.precision, f.scale)
}

// decimalText writes d for an error: as decimal text, or in scientific
// notation when its exponent is far from 0 (1e1000000000 would be a
// billion digits).
func decimalText(d decimal.Decimal) string {
	if e := d.Exponent(); e < -100 || e > 100 {
		return d.Coefficient().String() + "e" + strconv.Itoa(int(e))
	}
	return d.String()
}

// pow10s holds 10^0 … 10^38.
var pow10s = func() []*big.Int {
	p := make([]*big.Int, maxDecimalPrecision+1)
	for i := range p {
		p[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
	return p
}()

// pow10 returns 10^n; the caller must not change it.
func pow10(n int64) *big.Int {
	if n < int64(len(pow10s)) {
		return pow10s[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil)
}

// value returns the decimal field of the struct at v: ok is false for a
// nil pointer.
func (f *decimalField) value(v unsafe.Pointer) (decimal.Decimal, bool) {
	p := unsafe.Add(v, f.off)
	if f.ptr {
		d := *(**decimal.Decimal)(p)
		if d == nil {
			return decimal.Decimal{}, false
		}
		return *d, true
	}
	return *(*decimal.Decimal)(p), true
}

// decimalCheck returns the check of a chunk's values that reports the
// first one with a decimal that its column does not hold, before the
// chunk is written: the run's error names its partition and row ID.
func decimalCheck[T any](p *decimalPlan) func([]T) (int, error) {
	return func(vals []T) (int, error) {
		for i := range vals {
			for k := range p.fields {
				f := &p.fields[k]
				d, ok := f.value(unsafe.Pointer(&vals[i]))
				if !ok {
					continue
				}
				_, fast, err := f.unscaled64(d)
				if !fast {
					_, err = f.unscaled(d)
				}
				if err != nil {
					return i, err
				}
			}
		}
		return 0, nil
	}
}

// decimalWriter writes structs with decimal fields as rows of the plan's
// shadow struct, with the row ID columns after T's if ids.
type decimalWriter[T any] struct {
	w    *parquet.GenericWriter[any]
	plan *decimalPlan
	ids  *rowIDEncoder // nil without RowIDColumn
	buf  reflect.Value
	rows []parquet.Row
}

// newDecimalWriter returns the writer of p's files; opts are the
// writer's options without the schema.
func newDecimalWriter[T any](p *pqPlan[T], out io.Writer, opts []parquet.WriterOption) batchWriter[T] {
	w := &decimalWriter[T]{w: parquet.NewGenericWriter[any](out, append(opts, p.schema)...), plan: p.dec}
	if p.cfg.rowIDColumn != "" {
		w.ids = &rowIDEncoder{col: p.nCols}
	}
	return w
}

func (w *decimalWriter[T]) write(vals []T, ids flow.IDs) error {
	// One shadow value per row of the batch: the rows refer to their
	// bytes until parquet-go has copied them into its buffers.
	if !w.buf.IsValid() || w.buf.Len() < len(vals) {
		w.buf = reflect.MakeSlice(reflect.SliceOf(w.plan.shadow), len(vals), len(vals))
		w.rows = make([]parquet.Row, len(vals))
	}
	rows := w.rows[:len(vals)]
	if w.ids != nil {
		w.ids.encode(ids)
	}
	for i := range vals {
		sv := w.buf.Index(i)
		if err := w.plan.convert(sv, &vals[i]); err != nil {
			return err
		}
		row := w.plan.schema.Deconstruct(rows[i][:0], sv.Addr().Interface())
		if w.ids != nil {
			row = w.ids.appendTo(row, i)
		}
		rows[i] = row
	}
	n, err := w.w.WriteRows(rows)
	if err == nil && n != len(rows) {
		err = fmt.Errorf("parquet-go wrote %d of %d rows", n, len(rows))
	}
	return err
}

func (w *decimalWriter[T]) flush() error { return w.w.Flush() }
func (w *decimalWriter[T]) size() int64  { return w.w.Size() }
func (w *decimalWriter[T]) close() error { return w.w.Close() }

// convert sets the shadow struct sv from the struct at v: the other
// fields as they are, the decimals as their unscaled values.
func (p *decimalPlan) convert(sv reflect.Value, v any) error {
	tv := reflect.ValueOf(v).Elem()
	for _, c := range p.copies {
		sv.Field(c[1]).Set(tv.Field(c[0]))
	}
	for k := range p.fields {
		f := &p.fields[k]
		dst := sv.Field(f.dst)
		d, ok := f.value(tv.Addr().UnsafePointer())
		if !ok {
			dst.SetZero()
			continue
		}
		if f.ptr {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		var buf []byte
		if dst.Kind() == reflect.Array {
			buf = dst.Bytes()[:0]
		}
		u, b, err := f.encode(d, buf)
		switch {
		case err != nil:
			return err
		case dst.Kind() == reflect.Array:
			copy(dst.Bytes(), b)
		default:
			dst.SetInt(u)
		}
	}
	return nil
}
