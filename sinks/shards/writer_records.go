package shards

import (
	"context"
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
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
	"github.com/rowflow/rowflow/internal/text/textnum"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// parquetRecords is [Parquet] of records (T [sources.Record]), with the
// columns of the [Schema] option.
func parquetRecords(dir string, opts []ParquetOption) flow.Sink {
	plan, err := newRecordPlan[sources.Record](dir, "Parquet[sources.Record]", opts)
	return newShardSink[sources.Record](dir, plan, err)
}

// recordPlan is how Parquet turns records, and the rows of column
// batches, into the rows of its files.
type recordPlan struct {
	cols   []pqschema.Column
	index  map[string]int // column name → position
	shreds []shredder     // per column
}

// newRecordPlan checks the schema ([Schema]) and the options of the sink
// called sink, Parquet of records (T is sources.Record) or of column
// batches (T is batchRow). It never panics: a panic of parquet-go on a
// strange schema becomes the error.
func newRecordPlan[T any](dir, sink string, opts []ParquetOption) (p *pqPlan[T], err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("shards: %s(%q): %v", sink, dir, r)
		}
	}()
	if dir == "" {
		return nil, fmt.Errorf("shards: %s: empty directory name", sink)
	}
	what := fmt.Sprintf("%s(%q)", sink, dir)
	cfg, err := buildParquetConfig(opts)
	if err != nil {
		return nil, err
	}
	schema := cfg.schema
	if schema == nil {
		return nil, fmt.Errorf("shards: %s: no Schema: give the files' columns with shards.Schema (sources/parquet.RecordSchema gives those of a Parquet dataset's records)", what)
	}
	rp := &recordPlan{cols: pqschema.Columns(schema), index: map[string]int{}}
	if len(rp.cols) == 0 {
		return nil, fmt.Errorf("shards: %s: the schema has no columns", what)
	}
	for i, c := range rp.cols {
		sh, err := newShredder(c.Node, 0)
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
	p = &pqPlan[T]{dir: dir, cfg: cfg, what: what, format: "parquet", ext: ".parquet", rec: rp}
	p.codec, p.level = cfg.ownCodec()
	p.tSchema = pqschema.New(schema.Name(), rp.cols...)
	p.schema = p.tSchema
	p.nCols = len(p.tSchema.Columns())
	if name := cfg.rowIDColumn; name != "" {
		if p.schema, err = withRecordRowIDColumns(schema.Name(), rp.cols, name); err != nil {
			return nil, err
		}
	}
	if len(cfg.partitionBy) > 0 {
		if p.parts, err = recordPartitionColumns(rp, cfg.partitionBy); err != nil {
			return nil, fmt.Errorf("shards: %s: %w", what, err)
		}
		check := recordPartitionCheck(p.parts)
		p.check, _ = any(check).(func([]T) (int, error))
	}
	w := p.newWriter(io.Discard, "", nil)
	if err := w.close(); err != nil {
		return nil, fmt.Errorf("shards: %s: %w", what, err)
	}
	return p, nil
}

// recordWriter writes records column by column with rowflow's own
// Parquet writer (internal/parquet/pqwrite). Each record is converted
// once, each value straight into the typed column of its leaf; the row
// IDs of a batch of writeBatchRows rows, counted from the start of the
// row group, are encoded when the batch is full or the row group ends;
// and the writer encodes a row group's column chunks, concurrently, when
// it ends. Where pages end depends on the rows alone, not on how the
// stream was cut into chunks.
type recordWriter struct {
	rp  *recordPlan
	w   *pqwrite.Writer
	ids *rowIDEncoder // nil: no row-ID columns
	// pendIDs are the pending rows' IDs, encoded by push: the encoding
	// learns from a batch of rows, and push's batches are those of
	// writeBatchRows rows from the row group's start, whatever the chunks.
	pendIDs []rowid.ID
	// groupRows is the number of rows of the current row group, for
	// writers that count batches of writeBatchRows themselves.
	groupRows int
	err       error
	typed     []*pqwrite.Column // the row group's columns, per column of the file
	outs      []colOut          // where the shredders put them
	varCols   []int             // the columns of variable size: byte arrays and repeated columns
	vals      []any             // the current record's value per column of the plan
	// names are the names of the last record whose names were looked up,
	// and perm where each of them goes: a column of the plan, or -1 for a
	// name the record held before.
	names []string
	perm  []int
}

// newRecordWriter returns the writer of records with rp to w, or one
// that fails with err if w could not be made.
func newRecordWriter(rp *recordPlan, w *pqwrite.Writer, err error, ids *rowIDEncoder) *recordWriter {
	r := &recordWriter{rp: rp, w: w, err: err, ids: ids}
	if err != nil {
		return r
	}
	r.typed = w.NewColumns()
	r.outs = make([]colOut, len(r.typed))
	for j, l := range w.Leaves() {
		r.outs[j] = colOut{c: r.typed[j], maxRep: l.MaxRepetitionLevel, maxDef: l.MaxDefinitionLevel}
		if l.Kind == parquet.ByteArray || l.Kind == parquet.FixedLenByteArray || l.MaxRepetitionLevel > 0 {
			r.varCols = append(r.varCols, j)
		}
	}
	if rp != nil {
		r.vals = make([]any, len(rp.cols))
	}
	return r
}

// write converts recs and writes them. A record that cannot be written
// fails the call with a rowFailed that says which.
func (r *recordWriter) write(recs []sources.Record, ids flow.IDs) error {
	if r.err != nil {
		return r.err
	}
	for k := range recs {
		if err := r.add(&recs[k]); err != nil {
			r.err = err
			return &rowFailed{k: k, err: err}
		}
		if r.ids != nil {
			r.pendIDs = append(r.pendIDs, ids.At(k))
		}
		if err := r.endGroupIfFull(); err != nil {
			return err
		}
	}
	return nil
}

// endGroupIfFull encodes the pending IDs of whole batches of
// writeBatchRows rows, and ends the row group if its values of variable
// size take recordGroupBytes.
func (r *recordWriter) endGroupIfFull() error {
	if n := len(r.pendIDs) / writeBatchRows * writeBatchRows; n > 0 {
		for i := 0; i < n; i += writeBatchRows {
			r.encodeIDs(r.pendIDs[i : i+writeBatchRows])
		}
		r.pendIDs = r.pendIDs[:copy(r.pendIDs, r.pendIDs[n:])]
	}
	if r.heldBytes() < recordGroupBytes {
		return nil
	}
	if err := r.endRowGroup(); err != nil {
		r.err = err
		return err
	}
	return nil
}

// recordGroupBytes is the most bytes of variable-size values (byte
// arrays, and the values of repeated columns, such as lists of numbers)
// that a writer's columns hold before it ends the row group, whatever
// RowGroupRows says: the columns hold a row group's values unencoded
// until it ends, and rows of large values would otherwise hold many times
// that. A variable, so that a test can make it small.
var recordGroupBytes = 128 << 20

// heldBytes returns the bytes of the values that the columns of
// variable size hold.
func (r *recordWriter) heldBytes() int {
	n := 0
	for _, j := range r.varCols {
		c := r.typed[j]
		n += len(c.Bytes) + len(c.Boolean) + 4*(len(c.Int32)+len(c.Float)) + 8*(len(c.Int64)+len(c.Double))
	}
	return n
}

// add appends the values of rec to the pending columns. A column that rec
// does not name is null; a name that rec holds twice keeps its first
// value, as sources.Record's MarshalJSON does.
func (r *recordWriter) add(rec *sources.Record) error {
	rp := r.rp
	if !slices.Equal(rec.Names, r.names) {
		if err := r.lookUp(rec.Names); err != nil {
			return err
		}
	}
	clear(r.vals)
	for i, j := range r.perm {
		if j >= 0 && i < len(rec.Values) {
			r.vals[j] = rec.Values[i]
		}
	}
	for j, v := range r.vals {
		if err := rp.shreds[j](v, 0, 0, &r.outs[j]); err != nil {
			return fmt.Errorf("column %q: %w", rp.cols[j].Name, err)
		}
	}
	return nil
}

// lookUp finds the columns of names, for this record and the next ones
// with the same names.
func (r *recordWriter) lookUp(names []string) error {
	r.names, r.perm = r.names[:0], r.perm[:0]
	seen := make([]bool, len(r.rp.cols))
	for _, name := range names {
		j, ok := r.rp.index[name]
		if !ok {
			r.names = r.names[:0] // not a valid lookup: look up again next time
			return fmt.Errorf("the record's column %q is not in the schema", name)
		}
		if seen[j] {
			j = -1
		} else {
			seen[j] = true
		}
		r.perm = append(r.perm, j)
	}
	r.names = append(r.names, names...)
	return nil
}

// push encodes the pending rows' IDs into the row-ID columns.
func (r *recordWriter) push() {
	if len(r.pendIDs) > 0 {
		r.encodeIDs(r.pendIDs)
		r.pendIDs = r.pendIDs[:0]
	}
}

// encodeIDs encodes the IDs of a batch of rows into the row-ID columns.
func (r *recordWriter) encodeIDs(batch []rowid.ID) {
	r.ids.encode(flow.ListIDs(batch))
	for k := range batch {
		r.ids.appendColumns(r.outs, k)
	}
}

// colOut is where a shredder puts the leaf values of one column of the
// file: its typed column.
type colOut struct {
	c              *pqwrite.Column
	maxRep, maxDef int
}

// levels appends the levels of an entry that holds a value.
func (o *colOut) levels(rep, def int) {
	if o.maxRep > 0 {
		o.c.RepLevels = append(o.c.RepLevels, byte(rep))
	}
	if o.maxDef > 0 {
		o.c.DefLevels = append(o.c.DefLevels, byte(def))
	}
}

// put puts a leaf value, or a null (an empty or null list) when def is
// below the leaf's maximum definition level, with its levels.
func (o *colOut) put(pv parquet.Value, rep, def int) {
	o.levels(rep, def)
	if def < o.maxDef {
		return
	}
	o.c.AppendValue(pv)
}

// endRowGroup writes the row group that the columns hold.
func (r *recordWriter) endRowGroup() error {
	r.push()
	r.groupRows = 0
	err := r.w.WriteRowGroup(context.Background(), r.typed)
	for _, c := range r.typed {
		c.Reset()
	}
	return err
}

func (r *recordWriter) flush() error {
	if r.err != nil {
		return r.err
	}
	return r.endRowGroup()
}

func (r *recordWriter) size() int64 {
	if r.w == nil {
		return 0 // the writer could not be made: r.err says why
	}
	return r.w.Size()
}

func (r *recordWriter) close() error {
	if r.err != nil {
		return r.err
	}
	if err := r.endRowGroup(); err != nil {
		return err
	}
	return r.w.Close()
}

// leafPath returns the dotted path of the leaf of a column named name whose
// node is n: the name of records that sources/parquet.Read[sources.Record] reads from
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

// shredder puts the leaf values of v, a value of one node, to o with
// their repetition and definition levels (Dremel striping): rep is the
// level of the first value, def the definition level of the node's parent.
// (parquet-go's Schema.Deconstruct gets the levels of lists of lists held
// as []any wrong, so records are striped here.)
type shredder func(v any, rep, def int, o *colOut) error

// newShredder returns the shredder of node n of column col, under reps
// repeated fields.
func newShredder(n parquet.Node, reps int) (shredder, error) {
	var inner shredder // v is not nil; def counts n itself
	switch {
	case isList(n):
		elem, err := newShredder(n.Fields()[0].Fields()[0], reps+1)
		if err != nil {
			return nil, err
		}
		inner = listShredder(elem, reps)
	case !n.Leaf():
		return nil, errors.New("a group that is not a LIST; records write leaves and lists of leaves")
	case n.Repeated(): // a list of required leaves, empty when nil
		leaf, err := leafConverter(n.Type())
		if err != nil {
			return nil, err
		}
		elems := listShredder(func(x any, rep, def int, o *colOut) error {
			if x == nil {
				return errors.New("null in a repeated column")
			}
			pv, err := leaf(x)
			if err == nil {
				o.put(pv, rep, def)
			}
			return err
		}, reps)
		return func(v any, rep, def int, o *colOut) error {
			if v == nil {
				o.put(parquet.NullValue(), rep, def)
				return nil
			}
			return elems(v, rep, def, o)
		}, nil
	default:
		leaf, err := leafConverter(n.Type())
		if err != nil {
			return nil, err
		}
		inner = func(v any, rep, def int, o *colOut) error {
			pv, err := leaf(v)
			if err == nil {
				o.put(pv, rep, def)
			}
			return err
		}
	}
	leaf, optional := n.Leaf(), n.Optional()
	text := false
	var fast func(v any, rep, def int, o *colOut) bool
	if leaf {
		k := n.Type().Kind()
		decimal := false
		if lt := n.Type().LogicalType(); lt != nil {
			_, decimal = lt.Value.(*pqformat.DecimalType)
		}
		text = (k == parquet.ByteArray || k == parquet.FixedLenByteArray) && !decimal
		fast = fastLeaf(n.Type())
	}
	present := 0 // what a value adds to the definition level
	if optional {
		present = 1
	}
	return func(v any, rep, def int, o *colOut) error {
		if fast != nil && v != nil && fast(v, rep, def+present, o) {
			return nil
		}
		if s, ok := v.(string); ok && s == "" && leaf && !text {
			v = nil // an empty CSV field
		}
		switch {
		case v != nil && optional:
			return inner(v, rep, def+1, o)
		case v != nil:
			return inner(v, rep, def, o)
		case optional, !leaf: // null; a required list is empty
			o.put(parquet.NullValue(), rep, def)
			return nil
		}
		return errors.New("null in a required column")
	}, nil
}

// fastLeaf returns the function that puts the common values of a leaf of
// type t, a physical type, a STRING or a signed integer as wide, straight
// into a column, or nil: text (a CSV field, a JSON number), and the Go
// type a Parquet record holds for it. It converts as leafConverter does,
// and leaves to it, with false and nothing put, what it does not take:
// another type, a null, text that does not parse.
func fastLeaf(t parquet.Type) func(v any, rep, def int, o *colOut) bool {
	text := textLeaf(t)
	if text == nil {
		return nil
	}
	switch t.Kind() {
	case parquet.Boolean:
		return func(v any, rep, def int, o *colOut) bool {
			switch x := v.(type) {
			case bool:
				o.levels(rep, def)
				o.c.Boolean = append(o.c.Boolean, x)
				return true
			case string:
				return text(x, rep, def, o)
			}
			return false
		}
	case parquet.Int32:
		return func(v any, rep, def int, o *colOut) bool {
			switch x := v.(type) {
			case int32:
				o.levels(rep, def)
				o.c.Int32 = append(o.c.Int32, x)
				return true
			case int64:
				if x != int64(int32(x)) {
					return false
				}
				o.levels(rep, def)
				o.c.Int32 = append(o.c.Int32, int32(x))
				return true
			case string:
				return text(x, rep, def, o)
			case json.Number:
				return text(string(x), rep, def, o)
			}
			return false
		}
	case parquet.Int64:
		return func(v any, rep, def int, o *colOut) bool {
			var i int64
			switch x := v.(type) {
			case int64:
				i = x
			case int32:
				i = int64(x)
			case string:
				return text(x, rep, def, o)
			case json.Number:
				return text(string(x), rep, def, o)
			default:
				return false
			}
			o.levels(rep, def)
			o.c.Int64 = append(o.c.Int64, i)
			return true
		}
	case parquet.Double:
		return func(v any, rep, def int, o *colOut) bool {
			switch x := v.(type) {
			case float64:
				o.levels(rep, def)
				o.c.Double = append(o.c.Double, x)
				return true
			case string:
				return text(x, rep, def, o)
			case json.Number:
				return text(string(x), rep, def, o)
			}
			return false
		}
	case parquet.ByteArray:
		return func(v any, rep, def int, o *colOut) bool {
			switch x := v.(type) {
			case string:
				return text(x, rep, def, o)
			case []byte:
				o.levels(rep, def)
				o.c.AppendBytes(x)
				return true
			}
			return false
		}
	}
	return nil
}

// textLeaf returns the function that puts text (a CSV field, the digits
// of a JSON number, a STRING column's value) straight into a column of a
// leaf of type t, a physical type, a STRING or a signed integer as wide,
// or nil for other types: strconv's booleans, short decimal integers,
// decimal floats, and any text for a STRING. It leaves, with false and
// nothing put, what it does not take, to leafConverter.
func textLeaf(t parquet.Type) func(s string, rep, def int, o *colOut) bool {
	if lt := t.LogicalType(); lt != nil {
		switch l := lt.Value.(type) {
		case *pqformat.StringType:
		case *pqformat.IntType: // signed, of the physical type's width
			if !l.IsSigned || (l.BitWidth == 32) != (t.Kind() == parquet.Int32) || (l.BitWidth != 32 && l.BitWidth != 64) {
				return nil
			}
		default:
			return nil
		}
	}
	switch t.Kind() {
	case parquet.Boolean:
		return func(s string, rep, def int, o *colOut) bool {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return false
			}
			o.levels(rep, def)
			o.c.Boolean = append(o.c.Boolean, b)
			return true
		}
	case parquet.Int32:
		return func(s string, rep, def int, o *colOut) bool {
			i, ok := textnum.Int(s)
			if !ok || i != int64(int32(i)) {
				return false
			}
			o.levels(rep, def)
			o.c.Int32 = append(o.c.Int32, int32(i))
			return true
		}
	case parquet.Int64:
		return func(s string, rep, def int, o *colOut) bool {
			i, ok := textnum.Int(s)
			if !ok {
				return false
			}
			o.levels(rep, def)
			o.c.Int64 = append(o.c.Int64, i)
			return true
		}
	case parquet.Double:
		return func(s string, rep, def int, o *colOut) bool {
			f, ok := textnum.Float(s)
			if !ok {
				var err error
				if f, err = strconv.ParseFloat(s, 64); err != nil {
					return false
				}
			}
			o.levels(rep, def)
			o.c.Double = append(o.c.Double, f)
			return true
		}
	case parquet.ByteArray:
		return func(s string, rep, def int, o *colOut) bool {
			o.levels(rep, def)
			o.c.AppendString(s)
			return true
		}
	}
	return nil
}

// textList returns the shredder of a list column that also takes the
// column's value as text, as CSV gives every value: the empty string is
// null, and any other string must hold a JSON array, which is decoded as
// sources/text.JSONL[sources.Record] decodes a line's lists (numbers as
// json.Number).
func textList(sh shredder) shredder {
	return func(v any, rep, def int, o *colOut) error {
		if s, ok := v.(string); ok {
			v = nil
			if s != "" {
				l, err := decodeList(s)
				if err != nil {
					return err
				}
				v = l
			}
		}
		return sh(v, rep, def, o)
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
func listShredder(elem shredder, reps int) shredder {
	return func(v any, rep, def int, o *colOut) error {
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%T is not a list ([]any)", v)
		}
		if len(l) == 0 {
			o.put(parquet.NullValue(), rep, def)
			return nil
		}
		for i, x := range l {
			r := rep
			if i > 0 {
				r = reps + 1
			}
			if err := elem(x, r, def+1, o); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		return nil
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
