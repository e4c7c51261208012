package shards

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/sources"
)

// ParquetRecords returns a sink that writes schema-less records
// ([sources.Record]) as sharded Parquet files in dir, with the columns of
// schema: the sink for ETL that reads records, as the rowflow command's
// reshard does. Everything but how a row becomes columns is
// [Parquet]'s: file sizes, writers, ranks, the crash-safe commit,
// the manifest, determinism. [PartitionBy] is not supported.
//
// The schema's top-level columns are the files' columns, in its order
// (a parquet.Group orders them by name; [github.com/rowflow/rowflow/sources/parquet.RecordSchema]
// gives the schema of the records of a Parquet dataset, in the dataset's
// order). A record's value goes to the column of its name, or to the LIST
// column whose leaf has that dotted path (a.list.element for a LIST a,
// the name records read from such a column have); a column that
// the record does not name is null, and a name that is not a column is an
// error. Each column is a leaf, a repeated leaf, or a LIST (of lists) of
// leaves, optional or required; a record's value for a list is a []any, as
// sources/parquet.Records gives it, or a string that holds a JSON array,
// such as "[1,2,3]" or "[]" in a CSV field, whose elements (numbers as
// json.Number) are converted as sources/text.JSONLRecords' lists are; the
// empty string is a null list, and a string that is not a JSON array is
// an error. A value is converted to its column's
// type when that loses nothing: any Go integer to an integer column that
// holds it, integers and floats to float columns, json.Number (as
// sources/text.JSONLRecords gives numbers) to any numeric column, and strings,
// as sources/text.CSVRecords gives every value, parsed with strconv to numeric
// and boolean columns, where the empty string is null. BYTE_ARRAY columns take strings and []byte (and a
// json.Number's text); FIXED_LEN_BYTE_ARRAY the right number of bytes;
// INT96 a [12]byte. A value that does not fit, and a null in a required
// column, fail the run with an error that names the partition, the row ID
// and the column.
//
// A schema with columns of another kind (a group that is not a LIST, a
// MAP) is refused when the sink is built, as is a nil schema.
func ParquetRecords(dir string, schema *parquet.Schema, opts ...ParquetOption) flow.Sink {
	plan, err := newRecordPlan(dir, schema, opts)
	return newShardSink[sources.Record](dir, plan, err)
}

// recordPlan is how ParquetRecords turns records into rows.
type recordPlan struct {
	cols   []pqschema.Column
	index  map[string]int // column name → position
	shreds []shredder     // per column
}

// newRecordPlan checks the schema and the options. It never panics: a
// panic of parquet-go on a strange schema becomes the error.
func newRecordPlan(dir string, schema *parquet.Schema, opts []ParquetOption) (p *pqPlan[sources.Record], err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("shards: ParquetRecords(%q): %v", dir, r)
		}
	}()
	if dir == "" {
		return nil, errors.New("shards: ParquetRecords: empty directory name")
	}
	what := fmt.Sprintf("ParquetRecords(%q)", dir)
	if schema == nil {
		return nil, fmt.Errorf("shards: %s: nil schema", what)
	}
	cfg, err := buildParquetConfig(opts)
	if err != nil {
		return nil, err
	}
	rp := &recordPlan{cols: pqschema.Columns(schema), index: map[string]int{}}
	if len(rp.cols) == 0 {
		return nil, fmt.Errorf("shards: %s: the schema has no columns", what)
	}
	for i, c := range rp.cols {
		sh, err := newShredder(c.Node, 0, i)
		if err != nil {
			return nil, fmt.Errorf("shards: %s: column %q: %w", what, c.Name, err)
		}
		if isList(c.Node) || c.Node.Repeated() {
			sh = textList(sh)
		}
		for _, name := range []string{c.Name, leafPath(c.Name, c.Node)} {
			if j, dup := rp.index[name]; dup && j != i {
				return nil, fmt.Errorf("shards: %s: columns %q and %q both take records' %q", what, rp.cols[j].Name, c.Name, name)
			}
			rp.index[name] = i
		}
		rp.shreds = append(rp.shreds, sh)
	}
	p = &pqPlan[sources.Record]{dir: dir, cfg: cfg, what: what, format: "parquet", ext: ".parquet", rec: rp}
	p.codec, p.level = cfg.codec()
	p.tSchema = pqschema.New(schema.Name(), rp.cols...)
	p.schema = p.tSchema
	p.nCols = len(p.tSchema.Columns())
	if name := cfg.rowIDColumn; name != "" {
		if p.schema, err = withRecordRowIDColumns(schema.Name(), rp.cols, name); err != nil {
			return nil, err
		}
	}
	p.check = rp.check
	if len(cfg.partitionBy) > 0 {
		if p.parts, err = recordPartitionColumns(rp, cfg.partitionBy); err != nil {
			return nil, fmt.Errorf("shards: %s: %w", what, err)
		}
		p.check = alsoCheck(p.check, recordPartitionCheck(p.parts))
	}
	w := p.newWriter(io.Discard, "", nil)
	if err := w.close(); err != nil {
		return nil, fmt.Errorf("shards: %s: %w", what, err)
	}
	return p, nil
}

// check reports the first record of recs that cannot be written, and why.
func (rp *recordPlan) check(recs []sources.Record) (int, error) {
	var sc rowScratch
	var row parquet.Row
	for i, r := range recs {
		var err error
		if row, err = rp.row(r, row[:0], &sc); err != nil {
			return i, err
		}
	}
	return 0, nil
}

// rowScratch is what row reuses from one record to the next: a value per
// column, and whether the record gave the column one.
type rowScratch struct {
	vals []any
	seen []bool
}

// row appends the values of r, column by column, to row. A column that r
// does not name is null; a name that r holds twice keeps its first value,
// as sources.Record's MarshalJSON does.
func (rp *recordPlan) row(r sources.Record, row parquet.Row, sc *rowScratch) (parquet.Row, error) {
	n := len(rp.cols)
	sc.vals = slices.Grow(sc.vals[:0], n)[:n]
	sc.seen = slices.Grow(sc.seen[:0], n)[:n]
	clear(sc.vals)
	clear(sc.seen)
	for i, name := range r.Names {
		j, ok := rp.index[name]
		if !ok {
			return row, fmt.Errorf("the record's column %q is not in the schema", name)
		}
		if sc.seen[j] {
			continue
		}
		sc.seen[j] = true
		if i < len(r.Values) {
			sc.vals[j] = r.Values[i]
		}
	}
	var err error
	for j, v := range sc.vals {
		if row, err = rp.shreds[j](v, 0, 0, row); err != nil {
			return row, fmt.Errorf("column %q: %w", rp.cols[j].Name, err)
		}
	}
	return row, nil
}

// recordWriter writes records as parquet.Rows: the columns of the plan,
// then the row ID columns when the plan has them.
type recordWriter struct {
	rp   *recordPlan
	w    *parquet.GenericWriter[any]
	ids  *rowIDEncoder // nil: no row-ID columns
	sc   rowScratch
	rows []parquet.Row
}

func (r *recordWriter) write(recs []sources.Record, ids flow.IDs) error {
	if cap(r.rows) < len(recs) {
		r.rows = append(r.rows[:cap(r.rows)], make([]parquet.Row, len(recs)-cap(r.rows))...)
	}
	rows := r.rows[:len(recs)]
	if r.ids != nil {
		r.ids.encode(ids)
	}
	for i, rec := range recs {
		row, err := r.rp.row(rec, rows[i][:0], &r.sc)
		if err != nil {
			return err // not reached: the plan's check found the record first
		}
		if r.ids != nil {
			row = r.ids.appendTo(row, i)
		}
		rows[i] = row
	}
	n, err := r.w.WriteRows(rows)
	if err == nil && n != len(rows) {
		err = fmt.Errorf("parquet-go wrote %d of %d rows", n, len(rows))
	}
	return err
}

func (r *recordWriter) flush() error { return r.w.Flush() }
func (r *recordWriter) size() int64  { return r.w.Size() }
func (r *recordWriter) close() error { return r.w.Close() }

// leafPath returns the dotted path of the leaf of a column named name whose
// node is n: the name of records that sources/parquet.Records reads from
// the column (a.list.element for a LIST a of scalars).
func leafPath(name string, n parquet.Node) string {
	for isList(n) {
		rep := n.Fields()[0]
		elem := rep.Fields()[0]
		name += "." + rep.Name() + "." + elem.Name()
		n = elem
	}
	return name
}

// isList reports whether n is a LIST: a group annotated LIST holding one
// repeated group of one element.
func isList(n parquet.Node) bool {
	lt := n.Type().LogicalType()
	if lt == nil {
		return false
	}
	_, ok := lt.Value.(*pqformat.ListType)
	return ok && !n.Leaf() && len(n.Fields()) == 1 && n.Fields()[0].Repeated() && len(n.Fields()[0].Fields()) == 1
}

// shredder appends the leaf values of v, a value of one node, to row with
// their repetition and definition levels (Dremel striping): rep is the
// level of the first value, def the definition level of the node's parent.
// (parquet-go's Schema.Deconstruct gets the levels of lists of lists held
// as []any wrong, so records are striped here.)
type shredder func(v any, rep, def int, row parquet.Row) (parquet.Row, error)

// newShredder returns the shredder of node n of column col, under reps
// repeated fields.
func newShredder(n parquet.Node, reps, col int) (shredder, error) {
	var inner shredder // v is not nil; def counts n itself
	switch {
	case isList(n):
		elem, err := newShredder(n.Fields()[0].Fields()[0], reps+1, col)
		if err != nil {
			return nil, err
		}
		inner = listShredder(elem, reps, col)
	case !n.Leaf():
		return nil, errors.New("a group that is not a LIST; records write leaves and lists of leaves")
	case n.Repeated(): // a list of required leaves, empty when nil
		leaf, err := leafConverter(n.Type())
		if err != nil {
			return nil, err
		}
		elems := listShredder(func(x any, rep, def int, row parquet.Row) (parquet.Row, error) {
			if x == nil {
				return row, errors.New("null in a repeated column")
			}
			pv, err := leaf(x)
			return append(row, pv.Level(rep, def, col)), err
		}, reps, col)
		return func(v any, rep, def int, row parquet.Row) (parquet.Row, error) {
			if v == nil {
				return append(row, parquet.NullValue().Level(rep, def, col)), nil
			}
			return elems(v, rep, def, row)
		}, nil
	default:
		leaf, err := leafConverter(n.Type())
		if err != nil {
			return nil, err
		}
		inner = func(v any, rep, def int, row parquet.Row) (parquet.Row, error) {
			pv, err := leaf(v)
			return append(row, pv.Level(rep, def, col)), err
		}
	}
	leaf, optional := n.Leaf(), n.Optional()
	text := false
	if leaf {
		k := n.Type().Kind()
		decimal := false
		if lt := n.Type().LogicalType(); lt != nil {
			_, decimal = lt.Value.(*pqformat.DecimalType)
		}
		text = (k == parquet.ByteArray || k == parquet.FixedLenByteArray) && !decimal
	}
	return func(v any, rep, def int, row parquet.Row) (parquet.Row, error) {
		if s, ok := v.(string); ok && s == "" && leaf && !text {
			v = nil // an empty CSV field
		}
		switch {
		case v != nil && optional:
			return inner(v, rep, def+1, row)
		case v != nil:
			return inner(v, rep, def, row)
		case optional:
			return append(row, parquet.NullValue().Level(rep, def, col)), nil
		case !leaf: // a required list: empty
			return append(row, parquet.NullValue().Level(rep, def, col)), nil
		}
		return row, errors.New("null in a required column")
	}, nil
}

// textList returns the shredder of a list column that also takes the
// column's value as text, as CSV gives every value: the empty string is
// null, and any other string must hold a JSON array, which is decoded as
// sources/text.JSONLRecords decodes a line's lists (numbers as json.Number).
func textList(sh shredder) shredder {
	return func(v any, rep, def int, row parquet.Row) (parquet.Row, error) {
		if s, ok := v.(string); ok {
			v = nil
			if s != "" {
				l, err := decodeList(s)
				if err != nil {
					return row, err
				}
				v = l
			}
		}
		return sh(v, rep, def, row)
	}
}

// decodeList decodes s, which must be one JSON array and nothing else.
func decodeList(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	l, ok := v.([]any)
	switch {
	case err != nil:
	case !ok:
		err = fmt.Errorf("it is a JSON %s", jsonKind(v))
	default:
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("text after the array")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("string %s is not a JSON array (a list in text is written like [1,2,3]): %v", short(s), err)
	}
	return l, nil
}

// jsonKind names the kind of a value that encoding/json decoded.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	}
	return "object"
}

// listShredder returns the shredder of a list (a []any that is not nil)
// whose elements elem shreds, under reps repeated fields: an empty list is
// a null at the list's level, and elements after the first repeat at the
// list's own repetition level.
func listShredder(elem shredder, reps, col int) shredder {
	return func(v any, rep, def int, row parquet.Row) (parquet.Row, error) {
		l, ok := v.([]any)
		if !ok {
			return row, fmt.Errorf("%T is not a list ([]any)", v)
		}
		if len(l) == 0 {
			return append(row, parquet.NullValue().Level(rep, def, col)), nil
		}
		for i, x := range l {
			r := rep
			if i > 0 {
				r = reps + 1
			}
			var err error
			if row, err = elem(x, r, def+1, row); err != nil {
				return row, fmt.Errorf("element %d: %w", i, err)
			}
		}
		return row, nil
	}
}

// leafConverter returns the function that converts a value that is not
// nil to a leaf value of type t.
func leafConverter(t parquet.Type) (func(v any) (parquet.Value, error), error) {
	var conv func(v any) (parquet.Value, error)
	switch k := t.Kind(); k {
	case parquet.Boolean:
		conv = toBool
	case parquet.Int32, parquet.Int64:
		bits, signed, _ := assemble.IntType(&pqcol.Leaf{Kind: k, Node: parquet.Leaf(t)})
		conv = intConverter(k, bits, signed)
	case parquet.Float:
		conv = func(v any) (parquet.Value, error) {
			f, err := toFloat(v)
			if err == nil && math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
				// float32(f) would be ±Inf: a finite value that does not
				// fit. NaN and ±Inf pass as themselves.
				return parquet.Value{}, errors.New("out of range")
			}
			return parquet.FloatValue(float32(f)), err
		}
	case parquet.Double:
		conv = func(v any) (parquet.Value, error) {
			f, err := toFloat(v)
			return parquet.DoubleValue(f), err
		}
	case parquet.ByteArray:
		conv = func(v any) (parquet.Value, error) {
			b, err := toBytes(v)
			return parquet.ByteArrayValue(b), err
		}
	case parquet.FixedLenByteArray:
		size := t.Length()
		conv = func(v any) (parquet.Value, error) {
			b, err := toBytes(v)
			if err == nil && len(b) != size {
				err = fmt.Errorf("%d bytes for a FIXED_LEN_BYTE_ARRAY(%d)", len(b), size)
			}
			return parquet.FixedLenByteArrayValue(b), err
		}
	case parquet.Int96:
		conv = func(v any) (parquet.Value, error) {
			b, ok := v.([12]byte)
			if !ok {
				return parquet.Value{}, errType
			}
			var x deprecated.Int96
			for i := range x {
				x[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
			}
			return parquet.Int96Value(x), nil
		}
	default:
		return nil, fmt.Errorf("unsupported type %v", t)
	}
	if lc, ok := logicalConverter(t, conv); ok {
		conv = lc
	}
	return func(v any) (parquet.Value, error) {
		x, err := conv(v)
		if err != nil {
			return x, fmt.Errorf("cannot write %T %s as %v: %w", v, short(v), t, err)
		}
		return x, nil
	}, nil
}

// short formats v for an error, cut to 40 bytes.
func short(v any) string {
	s := fmt.Sprintf("%q", fmt.Sprint(v))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

var errType = errors.New("wrong type")

func toBool(v any) (parquet.Value, error) {
	switch x := v.(type) {
	case bool:
		return parquet.BooleanValue(x), nil
	case string:
		b, err := strconv.ParseBool(x)
		return parquet.BooleanValue(b), err
	}
	return parquet.Value{}, errType
}

// number returns v, a Go integer or float of any type (named ones too),
// as an int64 (signed kinds), a uint64 (unsigned kinds) or a float64;
// kind says which, and is reflect.Invalid for anything else.
func number(v any) (kind reflect.Kind, i int64, u uint64, f float64) {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return reflect.Int64, r.Int(), 0, 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return reflect.Uint64, 0, r.Uint(), 0
	case reflect.Float32, reflect.Float64:
		return reflect.Float64, 0, 0, r.Float()
	}
	return reflect.Invalid, 0, 0, 0
}

// intConverter converts to an integer column of the given width and
// signedness: int32 or uint32 for INT32, int64 or uint64 for INT64.
func intConverter(k parquet.Kind, bits int, signed bool) func(v any) (parquet.Value, error) {
	return func(v any) (parquet.Value, error) {
		switch x := v.(type) {
		case json.Number:
			return parseInt(string(x), k, bits, signed)
		case string:
			return parseInt(x, k, bits, signed)
		}
		switch kind, i, u, f := number(v); kind {
		case reflect.Int64:
			return fitInt(i < 0, i, uint64(max(i, 0)), k, bits, signed)
		case reflect.Uint64:
			return fitInt(false, 0, u, k, bits, signed)
		case reflect.Float64:
			switch {
			case f != math.Trunc(f) || math.IsInf(f, 0):
				return parquet.Value{}, errors.New("not an integer")
			case f < math.MinInt64 || f >= 1<<64:
				return parquet.Value{}, errors.New("out of range")
			case f < 0:
				return fitInt(true, int64(f), 0, k, bits, signed)
			}
			return fitInt(false, 0, uint64(f), k, bits, signed)
		}
		return parquet.Value{}, errType
	}
}

func parseInt(s string, k parquet.Kind, bits int, signed bool) (parquet.Value, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return fitInt(i < 0, i, uint64(max(i, 0)), k, bits, signed)
	}
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return parquet.Value{}, err
	}
	return fitInt(false, 0, u, k, bits, signed)
}

// fitInt returns the integer (i when neg, else u) as a value of the
// column, if the column's width and signedness hold it.
func fitInt(neg bool, i int64, u uint64, k parquet.Kind, bits int, signed bool) (parquet.Value, error) {
	if neg {
		if !signed || i < -1<<(bits-1) {
			return parquet.Value{}, errors.New("out of range")
		}
	} else if (signed && u > 1<<(bits-1)-1) || (!signed && bits < 64 && u > 1<<bits-1) {
		return parquet.Value{}, errors.New("out of range")
	}
	if neg {
		u = uint64(i)
	}
	if k == parquet.Int32 {
		return parquet.Int32Value(int32(u)), nil
	}
	return parquet.Int64Value(int64(u)), nil
}

// toFloat converts a Go number, a json.Number or a string to a float64.
func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return strconv.ParseFloat(string(x), 64)
	case string:
		return strconv.ParseFloat(x, 64)
	}
	switch kind, i, u, f := number(v); kind {
	case reflect.Int64:
		return float64(i), nil
	case reflect.Uint64:
		return float64(u), nil
	case reflect.Float64:
		return f, nil
	}
	return 0, errType
}

// toBytes returns the bytes of a string, []byte or json.Number. A string's
// bytes are not copied: the writer copies them before the string can go.
func toBytes(v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return unsafe.Slice(unsafe.StringData(x), len(x)), nil
	case []byte:
		return x, nil
	case json.Number:
		return unsafe.Slice(unsafe.StringData(string(x)), len(x)), nil
	}
	return nil, errType
}

// recordPartitionColumns returns the PartitionBy columns of records
// written with the schema of rp: each must be a column of the schema that
// is not a list.
func recordPartitionColumns(rp *recordPlan, names []string) ([]partColumn, error) {
	for _, name := range names {
		i, ok := rp.index[name]
		if !ok {
			return nil, fmt.Errorf("PartitionBy(%q): the schema has no column %q", names, name)
		}
		if c := rp.cols[i]; c.Node.Repeated() || isList(c.Node) || !c.Node.Leaf() {
			return nil, fmt.Errorf("PartitionBy(%q): column %q is a list or a group; want a string, bytes, bool or number column", names, name)
		}
	}
	return partitionColumns(reflect.TypeFor[sources.Record](), names)
}
