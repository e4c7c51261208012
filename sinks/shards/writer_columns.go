package shards

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
	sparquet "github.com/rowflow/rowflow/sources/parquet"
)

// parquetColumns is [Parquet] of column batches (T
// *[sparquet.ColumnBatch]), with the columns of the [Schema] option: the
// shard sink of the batches' kept rows (batchRow).
func parquetColumns(dir string, opts []ParquetOption) flow.Sink {
	plan, err := newRecordPlan[batchRow](dir, "Parquet[*parquet.ColumnBatch]", opts)
	if err == nil && (len(plan.cfg.partitionBy) > 0 || plan.cfg.continuing) {
		plan, err = nil, fmt.Errorf("shards: %s: PartitionBy and Continue are not supported for column batches; write records (Parquet[sources.Record]) for them", plan.what)
	}
	if plan != nil {
		plan.release, plan.batched = releaseRows, true
	}
	return flow.NewSink[*sparquet.ColumnBatch](columnsSink{&parquetSink[batchRow]{dir: dir, plan: plan, err: err}})
}

// batchRow is row i of a column batch: the writers of column batches take
// rows, so that files, row groups and row counts are cut by rows as for
// every other shard sink.
type batchRow struct {
	b *sparquet.ColumnBatch
	i int
}

// columnsSink is the stage of Parquet of column batches: the shard sink
// of the batches' rows.
type columnsSink struct{ rows *parquetSink[batchRow] }

func (s columnsSink) Info() flow.Info { return s.rows.Info() }
func (s columnsSink) Err() error      { return s.rows.Err() }

func (s columnsSink) NewConsumer(env flow.Env) flow.Consumer[*sparquet.ColumnBatch] {
	return &columnsConsumer{rows: s.rows.NewConsumer(env)}
}

// columnsConsumer turns each chunk of batches into the chunk of their
// kept rows, with the same partition and end, for the consumer of rows.
type columnsConsumer struct {
	rows flow.Consumer[batchRow]
}

func (c *columnsConsumer) Consume(ctx context.Context, ch flow.Chunk[*sparquet.ColumnBatch]) error {
	n := 0
	for _, b := range ch.Values {
		n += b.NumRows
	}
	rows := flow.Chunk[batchRow]{Part: ch.Part, End: ch.End, Values: slicepool.Alloc[batchRow](n)}
	ids := slicepool.Alloc[rowid.ID](n)
	for _, b := range ch.Values {
		kept := len(rows.Values)
		for i := range b.NumRows {
			if b.Kept(i) {
				rows.Values = append(rows.Values, batchRow{b, i})
				ids = append(ids, b.RowID(i))
			}
		}
		if len(rows.Values) == kept { // no row to write: the batch is done
			b.Release()
		}
	}
	rows.IDs = flow.ListIDs(ids)
	ch.Release()
	return c.rows.Consume(ctx, rows)
}

func (c *columnsConsumer) Close(err error) error { return c.rows.Close(err) }

// releaseRows releases the batches of rows, the rows of a chunk that has
// been written or dropped. The rows of a batch are consecutive.
func releaseRows(rows []batchRow) {
	var last *sparquet.ColumnBatch
	for _, r := range rows {
		if r.b != last {
			last = r.b
			last.Release()
		}
	}
}

// columnWriter writes rows of column batches with the record writer's
// typed columns, row-ID columns and row groups, copying each leaf's
// values and levels a run of rows at a time.
type columnWriter struct {
	*recordWriter
	// sig is the columns of the batches that from was worked out for,
	// and last the batch of the last run, whose columns are sig's.
	sig  columnsSig
	last *sparquet.ColumnBatch
	from []columnSource // per leaf of the file other than the row IDs
	// mergedCol is the column that merged made for leaf mergedLeaf of
	// batch mergedFor.
	mergedFor  *sparquet.ColumnBatch
	mergedLeaf int
	mergedCol  sparquet.Column
	// unknown are the batch columns that the schema does not have, of a
	// batch of a text source (NewColumnBatch): the first row with a
	// value for one fails.
	unknown []int
	// at is where the last run of rows of each leaf ended, so that the
	// next run of the same batch goes on from there.
	at []levelCursor
	// marks, pendMark and atMark are the state before the current run
	// (mark, undo).
	marks    []pqwrite.Mark
	pendMark int
	atMark   []levelCursor
}

// columnSource is where one leaf of the file takes its values: batch
// column col (if at least 0), a Hive partition value (if hive), or nulls.
type columnSource struct {
	col  int
	part string
	hive bool
	// defs maps the column's definition levels to the leaf's; nil when
	// they are the same.
	defs []byte
	// parse, for text that the leaf does not hold as it is, puts each
	// value (and a Hive value, always) through the column's shredder, as
	// Parquet of records puts a string, with text (textLeaf) as its fast
	// path where it has one.
	parse bool
	text  func(s string, rep, def int, o *colOut) bool
	// numbers says that text takes a JSON number's text as the leaf's
	// shredder takes the json.Number: for every leaf it has but BOOLEAN.
	numbers bool
	// missing marks a required leaf that a batch of a text source has no
	// column for: its first row fails as a record without the value does.
	missing bool
	// alts are the other columns of a batch of JSON Lines for the leaf,
	// and hiveFill marks a leaf of such a batch that a Hive value of its
	// name fills where the line has none of its keys (see merged).
	alts     []int
	hiveFill bool
}

// levelCursor is the start of a row of a column of batch b: its level
// entry, and the values before it.
type levelCursor struct {
	b                  *sparquet.ColumnBatch
	row, entry, values int
}

// columnsSig is what a columnWriter's matching depends on: the batch's
// columns, their types and levels, and its partition values.
type columnsSig struct {
	cols []sparquet.Column // without values
	part map[string]string
}

func (s *columnsSig) same(b *sparquet.ColumnBatch) bool {
	if s.cols == nil || len(s.cols) != len(b.Columns) || !maps.Equal(s.part, b.Partition) {
		return false
	}
	for k := range s.cols {
		x, y := &s.cols[k], &b.Columns[k]
		if x.Name != y.Name || x.Kind != y.Kind || x.TypeLength != y.TypeLength || isText(x) != isText(y) || x.Unsigned != y.Unsigned ||
			x.MaxDefinitionLevel != y.MaxDefinitionLevel || !slices.Equal(x.RepeatedLevels, y.RepeatedLevels) {
			return false
		}
	}
	return true
}

// write copies rows to the columns, each run of consecutive rows of a
// batch at once. A row group ends after the row whose values take the
// values of variable size held to recordGroupBytes, as for records: a run
// that gets there is taken back and copied again a row at a time.
func (w *columnWriter) write(rows []batchRow, ids flow.IDs) error {
	if w.err != nil {
		return w.err
	}
	for k := 0; k < len(rows); {
		b, first := rows[k].b, rows[k].i
		end := k + 1
		for end < len(rows) && rows[end].b == b && rows[end].i == first+end-k {
			end++
		}
		bounded := len(w.varCols) > 0 // only columns of variable size end a row group early
		if bounded {
			w.mark()
		}
		if err := w.copyRun(rows, ids, k, end); err != nil {
			return err
		}
		if bounded && end-k > 1 && w.heldBytes() >= recordGroupBytes {
			w.undo()
			for j := k; j < end; j++ {
				if err := w.copyRun(rows, ids, j, j+1); err != nil {
					return err
				}
				if err := w.endGroupIfFull(); err != nil {
					return err
				}
			}
		} else if err := w.endGroupIfFull(); err != nil {
			return err
		}
		k = end
	}
	return nil
}

// copyRun copies rows[k:end], consecutive rows of one batch, and queues
// their IDs.
func (w *columnWriter) copyRun(rows []batchRow, ids flow.IDs, k, end int) error {
	first := rows[k].i
	if at, err := w.copyRows(rows[k].b, first, first+end-k); err != nil {
		w.err = err
		return &rowFailed{k: k + at - first, err: err}
	}
	if w.ids != nil {
		for j := k; j < end; j++ {
			w.pendIDs = append(w.pendIDs, ids.At(j))
		}
	}
	return nil
}

// mark records the lengths of the columns and the pending IDs, and the
// cursors, for undo.
func (w *columnWriter) mark() {
	w.marks = w.marks[:0]
	for _, c := range w.typed {
		w.marks = append(w.marks, c.Mark())
	}
	w.pendMark = len(w.pendIDs)
	w.atMark = append(w.atMark[:0], w.at...)
}

// undo takes the columns, the pending IDs and the cursors back to the
// last mark. The IDs queued since are not encoded yet: copyRun only
// queues them.
func (w *columnWriter) undo() {
	for i, c := range w.typed {
		c.Undo(w.marks[i])
	}
	w.pendIDs = w.pendIDs[:w.pendMark]
	copy(w.at, w.atMark)
}

// copyRows appends rows [from, to) of b to the columns. If a row cannot
// be written, it returns the row and the error.
func (w *columnWriter) copyRows(b *sparquet.ColumnBatch, from, to int) (int, error) {
	if b != w.last && !w.sig.same(b) {
		if err := w.match(b); err != nil {
			return from, fmt.Errorf("%s: %w", where(b), err)
		}
	}
	w.last = b
	for _, k := range w.unknown {
		c := &b.Columns[k]
		if first := linkage.JSONColumn(c).First; first >= from && first < to {
			return first, fmt.Errorf("the record's column %q is not in the schema", c.Name)
		}
	}
	for j, src := range w.from {
		o := &w.outs[j]
		switch {
		case len(src.alts) > 0 || src.hiveFill:
			if at, err := w.parseColumn(j, w.merged(j, b), src, b, from, to); err != nil {
				return at, fmt.Errorf("column %q: %w", w.rp.cols[j].Name, err)
			}
		case src.parse, src.col >= 0 && hasKinds(&b.Columns[src.col]):
			if at, err := w.parseColumn(j, &b.Columns[src.col], src, b, from, to); err != nil {
				return at, fmt.Errorf("column %q: %w", w.rp.cols[j].Name, err)
			}
		case src.col >= 0:
			w.copyColumn(j, &b.Columns[src.col], src.defs, b, from, to)
		case src.hive:
			for r := from; r < to; r++ {
				if src.text != nil && src.text(src.part, 0, o.maxDef, o) {
					continue
				}
				if err := w.rp.shreds[j](src.part, 0, 0, o); err != nil {
					return r, fmt.Errorf("column %q: %w", w.rp.cols[j].Name, err) // as for records, whose value it is
				}
			}
		case src.missing:
			return from, fmt.Errorf("column %q: %w", w.rp.cols[j].Name, w.rp.shreds[j](nil, 0, 0, o))
		default:
			for range to - from {
				o.levels(0, 0)
			}
		}
	}
	return 0, nil
}

// where names the file of b and, for a Parquet file, its row group.
func where(b *sparquet.ColumnBatch) string {
	if b.RowGroup < 0 {
		return b.File
	}
	return fmt.Sprintf("%s row group %d", b.File, b.RowGroup)
}

// match works out where each leaf of the file takes its values from in
// batches with b's columns, which it checks against the leaves.
func (w *columnWriter) match(b *sparquet.ColumnBatch) error {
	leaves := w.w.Leaves()
	if w.ids != nil {
		leaves = leaves[:w.ids.col]
	}
	from := make([]columnSource, len(leaves))
	for j := range from {
		from[j] = columnSource{col: -1}
	}
	var unknown []int
	for k := range b.Columns {
		c := &b.Columns[k]
		j, ok := w.rp.index[c.Name] // the leaf of the column that a record's value of that name goes to
		if !ok && b.RowGroup < 0 {
			unknown = append(unknown, k) // as Parquet of records fails a record of CSV or JSON Lines with it
			continue
		}
		if !ok {
			return fmt.Errorf("the batch's column %q is not in the schema", c.Name)
		}
		if from[j].col >= 0 {
			// Two columns for one leaf: a LIST by its name and by its
			// leaf's path, which records both take. In a batch of JSON
			// Lines, whose lines name each key once, each row takes the
			// one that has a value in it (see merged); elsewhere, as a
			// record takes its first value of the names, the first.
			if linkage.JSONColumn(c).JSON && linkage.JSONColumn(&b.Columns[from[j].col]).JSON {
				from[j].alts = append(from[j].alts, k)
			}
			continue
		}
		l := &leaves[j]
		defs, err := checkLeaf(l, w.rp.cols[j].Node, c)
		switch text := isText(c); {
		case text && (err != nil || l.Kind != parquet.ByteArray || l.Decimal):
			from[j] = columnSource{col: k, parse: true}
			if l.MaxRepetitionLevel == 0 {
				from[j].text = textLeaf(w.rp.cols[j].Node.Type())
				from[j].numbers = from[j].text != nil && l.Kind != parquet.Boolean
			}
		case err != nil:
			return fmt.Errorf("column %q: %w", c.Name, err)
		default:
			from[j] = columnSource{col: k, defs: defs}
			if text {
				// A column of JSON Lines with values other than
				// strings goes through parseColumn (see copyRows).
				from[j].text = textLeaf(w.rp.cols[j].Node.Type())
				from[j].numbers = from[j].text != nil
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.Partition)) { // the same error every run
		if _, ok := w.rp.index[name]; !ok {
			return fmt.Errorf("the batch's Hive column %q is not in the schema", name)
		}
	}
	for j := range leaves {
		if from[j].col >= 0 {
			// A line of JSON Lines without the key takes the Hive
			// value, as a record, whose Hive values follow the line's.
			v, ok := b.Partition[w.rp.cols[j].Name]
			if ok && linkage.JSONColumn(&b.Columns[from[j].col]).JSON {
				from[j].part, from[j].hiveFill = v, true
			}
			continue
		}
		name := w.rp.cols[j].Name
		from[j].part, from[j].hive = b.Partition[name]
		switch {
		case from[j].hive && leaves[j].MaxRepetitionLevel == 0:
			from[j].text = textLeaf(w.rp.cols[j].Node.Type())
		case !from[j].hive && leaves[j].MaxDefinitionLevel == 0 && b.RowGroup < 0:
			from[j].missing = true // as Parquet of records fails a record of CSV or JSON Lines without it
		case !from[j].hive && leaves[j].MaxDefinitionLevel == 0:
			return fmt.Errorf("column %q is required, and the batch has no value for it", name)
		}
	}
	w.from, w.unknown, w.at = from, unknown, make([]levelCursor, len(leaves))
	w.sig = columnsSig{cols: make([]sparquet.Column, len(b.Columns)), part: maps.Clone(b.Partition)}
	for k, c := range b.Columns {
		w.sig.cols[k] = sparquet.Column{Name: c.Name, Kind: c.Kind, TypeLength: c.TypeLength,
			Node: c.Node, MaxDefinitionLevel: c.MaxDefinitionLevel, MaxRepetitionLevel: c.MaxRepetitionLevel, RepeatedLevels: c.RepeatedLevels, Unsigned: c.Unsigned}
	}
	return nil
}

// checkLeaf reports whether batch column c can fill leaf l, the leaf of
// the top-level column n, and returns how c's definition levels map to
// l's (nil: the same).
func checkLeaf(l *pqwrite.Leaf, n parquet.Node, c *sparquet.Column) ([]byte, error) {
	switch {
	case c.Kind != l.Kind:
		return nil, fmt.Errorf("the batch's values are %v, the schema's %v", c.Kind, l.Kind)
	case c.Kind == parquet.FixedLenByteArray && c.TypeLength != l.Width:
		return nil, fmt.Errorf("the batch's values are %d bytes long, the schema's %d", c.TypeLength, l.Width)
	case c.MaxRepetitionLevel != l.MaxRepetitionLevel:
		return nil, fmt.Errorf("the batch's values are in %d nested lists, the schema's in %d", c.MaxRepetitionLevel, l.MaxRepetitionLevel)
	case (c.Kind == parquet.Int32 || c.Kind == parquet.Int64) && c.Unsigned != l.Unsigned:
		return nil, fmt.Errorf("the batch's values are %s, the schema's %s", signedness(c.Unsigned), signedness(l.Unsigned))
	}
	return defMap(c.MaxDefinitionLevel, c.RepeatedLevels, l.MaxDefinitionLevel, repeatedLevels(n))
}

func signedness(unsigned bool) string {
	if unsigned {
		return "unsigned"
	}
	return "signed"
}

// repeatedLevels returns the RepeatedLevels (see sources/parquet.Column)
// of the leaf of n, a column with one leaf.
func repeatedLevels(n parquet.Node) []int {
	var reps []int
	def := 0
	for {
		switch {
		case n.Repeated():
			def++
			reps = append(reps, def)
		case n.Optional():
			def++
		}
		if n.Leaf() {
			return reps
		}
		n = n.Fields()[0]
	}
}

// defMap returns how the definition levels of a column (up to from, its
// repeated fields defined from the levels fromReps) map to those of a
// leaf with as many repeated fields (up to to, toReps): what each level
// says, a value, a null element, or an empty or null list at some depth,
// said in the leaf's levels. It returns nil if the levels are the same,
// and an error if the leaf cannot say what a level says: a null where
// it is required.
func defMap(from int, fromReps []int, to int, toReps []int) ([]byte, error) {
	if from == to && slices.Equal(fromReps, toReps) {
		return nil, nil
	}
	m := make([]byte, from+1)
	m[from] = byte(to)
	for d := range from {
		r := 0 // the lists that have an element at level d
		for r < len(fromReps) && fromReps[r] <= d {
			r++
		}
		above := 0 // the leaf's level where list r, or the element, is null
		if r > 0 {
			above = toReps[r-1]
		}
		switch {
		case r < len(fromReps) && d == fromReps[r]-1: // list r is empty
			m[d] = byte(toReps[r] - 1)
		case r < len(fromReps) && above == toReps[r]-1, r == len(fromReps) && above == to:
			return nil, fmt.Errorf("the batch's column holds nulls at depth %d, where the schema's is required", r)
		default: // list r is null, or the element
			m[d] = byte(above)
		}
	}
	return m, nil
}

// isText reports whether c holds text outside lists: a STRING (or
// ENUM, JSON) column, as records hold strings.
func isText(c *sparquet.Column) bool {
	return c.Kind == parquet.ByteArray && c.MaxRepetitionLevel == 0 && c.Node != nil && pqschema.IsText(c.Node.Type())
}

// parseColumn puts rows [from, to) of c, a text column, into leaf j
// through the column's shredder, with src.text as its fast path if not
// nil. The values of a column of JSON Lines
// (sources/text.JSONL[*parquet.ColumnBatch]) go to the shredder as
// JSONL[sources.Record]'s records hold them, by their JSON kinds: a
// number's text as a json.Number (through src.text where that is the
// same), true and false as bools, arrays and objects decoded as
// JSONL[sources.Record] decodes them. If a row cannot be written, it
// returns the row and the error.
func (w *columnWriter) parseColumn(j int, c *sparquet.Column, src columnSource, b *sparquet.ColumnBatch, from, to int) (int, error) {
	cur := &w.at[j]
	if cur.b != b || cur.row > from {
		*cur = levelCursor{b: b}
	}
	advance(c, cur, from)
	v := cur.values
	o, shred, text := &w.outs[j], w.rp.shreds[j], src.text
	kinds := linkage.JSONColumn(c).Kinds
	for r := from; r < to; r++ {
		if c.MaxDefinitionLevel > 0 && int(c.DefLevels[r]) < c.MaxDefinitionLevel {
			if err := shred(nil, 0, 0, o); err != nil {
				return r, err
			}
			continue
		}
		s := ""
		if lo, hi := c.Offsets[v], c.Offsets[v+1]; hi > lo {
			s = unsafe.String(&c.Bytes[lo], hi-lo) // the shredders copy what they keep
		}
		kind := linkage.JSONString
		if len(kinds) > 0 {
			kind = kinds[v]
		}
		v++
		if kind != linkage.JSONString {
			if kind == linkage.JSONNumber && src.numbers && text(s, 0, o.maxDef, o) {
				continue
			}
			if err := shred(jsonValue(kind, strings.Clone(s)), 0, 0, o); err != nil {
				return r, err
			}
			continue
		}
		if text != nil && text(s, 0, o.maxDef, o) {
			continue
		}
		if err := shred(s, 0, 0, o); err != nil {
			// Again with a copy of the text, which the error may keep
			// (strconv's do) after the batch's buffers go back to its
			// source; the writer fails with it, whatever it holds.
			return r, shred(strings.Clone(s), 0, 0, o)
		}
	}
	cur.row, cur.entry, cur.values = to, to, v
	return 0, nil
}

// merged returns the column of leaf j of batch b, of JSON Lines, that
// holds in each row what a record of the row takes for the leaf: the
// value (or null) of the one of the leaf's keys that the line has
// (w.from[j]: col, then alts; a LIST by its name and by its leaf's
// path), or, where it has none, the Hive value of the leaf's name, if
// any (hiveFill), or null. A line with two of the keys is taken as if
// it had the first column's, where a record takes the line's first. It
// is made once per batch.
func (w *columnWriter) merged(j int, b *sparquet.ColumnBatch) *sparquet.Column {
	if w.mergedFor == b && w.mergedLeaf == j {
		return &w.mergedCol
	}
	src := w.from[j]
	cols := append([]int{src.col}, src.alts...)
	at := make([]int, len(cols))    // the next value of each column
	nulls := make([]int, len(cols)) // the next of each column's Nulls
	first := &b.Columns[src.col]
	m := sparquet.Column{Name: first.Name, Node: first.Node, Kind: first.Kind, MaxDefinitionLevel: 1, Offsets: []uint32{0}}
	mk := &linkage.JSONColumn(&m).Kinds
	value := func(c *sparquet.Column, v int, kind byte) {
		m.DefLevels = append(m.DefLevels, 1)
		m.Bytes = append(m.Bytes, c.Bytes[c.Offsets[v]:c.Offsets[v+1]]...)
		m.Offsets = append(m.Offsets, uint32(len(m.Bytes)))
		*mk = append(*mk, kind)
	}
	hive := sparquet.Column{Bytes: []byte(src.part), Offsets: []uint32{0, uint32(len(src.part))}}
	for r := range b.NumRows {
		taken := false
		for i, k := range cols {
			c := &b.Columns[k]
			info := linkage.JSONColumn(c)
			switch {
			case c.DefLevels[r] == 1:
				if !taken {
					kind := linkage.JSONString
					if len(info.Kinds) > 0 {
						kind = info.Kinds[at[i]]
					}
					value(c, at[i], kind)
				}
				at[i]++
			case nulls[i] < len(info.Nulls) && info.Nulls[nulls[i]] == r:
				nulls[i]++
				if !taken {
					m.DefLevels = append(m.DefLevels, 0)
				}
			default:
				continue
			}
			taken = true
		}
		switch {
		case taken:
		case src.hiveFill:
			value(&hive, 0, linkage.JSONString)
		default:
			m.DefLevels = append(m.DefLevels, 0)
		}
	}
	w.mergedFor, w.mergedLeaf, w.mergedCol = b, j, m
	return &w.mergedCol
}

// hasKinds reports whether c is a column of JSON Lines that holds values
// other than strings.
func hasKinds(c *sparquet.Column) bool {
	return len(linkage.JSONColumn(c).Kinds) > 0
}

// jsonValue returns the value of a JSON Lines record whose JSON kind is
// kind and whose text in a column batch is s: a json.Number, a bool, or
// an array or object decoded as sources/text.JSONL[sources.Record]
// decodes one (numbers as json.Number).
func jsonValue(kind byte, s string) any {
	switch kind {
	case linkage.JSONNumber:
		return json.Number(s)
	case linkage.JSONBool:
		return s == "true"
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return s // not from a JSON Lines batch, whose arrays and objects are valid
	}
	return v
}

// copyColumn appends rows [from, to) of batch column c to leaf j.
func (w *columnWriter) copyColumn(j int, c *sparquet.Column, defs []byte, b *sparquet.ColumnBatch, from, to int) {
	cur := &w.at[j]
	if cur.b != b || cur.row > from {
		*cur = levelCursor{b: b}
	}
	advance(c, cur, from)
	e0, v0 := cur.entry, cur.values
	advance(c, cur, to)
	e1, v1 := cur.entry, cur.values
	o := &w.outs[j]
	dst := o.c
	if o.maxRep > 0 {
		dst.RepLevels = append(dst.RepLevels, c.RepLevels[e0:e1]...)
	}
	switch {
	case o.maxDef == 0:
	case defs == nil:
		dst.DefLevels = append(dst.DefLevels, c.DefLevels[e0:e1]...)
	case c.MaxDefinitionLevel == 0: // every entry holds a value
		for range e1 - e0 {
			dst.DefLevels = append(dst.DefLevels, defs[0])
		}
	default:
		for _, d := range c.DefLevels[e0:e1] {
			dst.DefLevels = append(dst.DefLevels, defs[d])
		}
	}
	copyValues(dst, c, v0, v1)
}

// advance moves cur forward to the start of row in c.
func advance(c *sparquet.Column, cur *levelCursor, row int) {
	if c.MaxDefinitionLevel == 0 { // required, so not repeated: one value a row
		cur.row, cur.entry, cur.values = row, row, row
		return
	}
	top := byte(c.MaxDefinitionLevel)
	n := len(c.DefLevels)
	for cur.row < row && cur.entry < n {
		for { // the entries of row cur.row
			if c.DefLevels[cur.entry] == top {
				cur.values++
			}
			cur.entry++
			if cur.entry == n || c.MaxRepetitionLevel == 0 || c.RepLevels[cur.entry] == 0 {
				break
			}
		}
		cur.row++
	}
}

// copyValues appends values [v0, v1) of c to dst.
func copyValues(dst *pqwrite.Column, c *sparquet.Column, v0, v1 int) {
	if v0 == v1 {
		return
	}
	switch c.Kind {
	case parquet.Boolean:
		dst.Boolean = append(dst.Boolean, c.Boolean[v0:v1]...)
	case parquet.Int32:
		dst.Int32 = append(dst.Int32, c.Int32[v0:v1]...)
	case parquet.Int64:
		dst.Int64 = append(dst.Int64, c.Int64[v0:v1]...)
	case parquet.Float:
		dst.Float = append(dst.Float, c.Float[v0:v1]...)
	case parquet.Double:
		dst.Double = append(dst.Double, c.Double[v0:v1]...)
	case parquet.ByteArray:
		if len(dst.Offsets) == 0 {
			dst.Offsets = append(dst.Offsets, 0)
		}
		lo, hi := c.Offsets[v0], c.Offsets[v1]
		shift := uint32(len(dst.Bytes)) - lo // modulo 2³²: adds len(dst.Bytes), takes lo
		dst.Bytes = append(dst.Bytes, c.Bytes[lo:hi]...)
		for _, off := range c.Offsets[v0+1 : v1+1] {
			dst.Offsets = append(dst.Offsets, off+shift)
		}
	case parquet.FixedLenByteArray:
		dst.Bytes = append(dst.Bytes, c.Bytes[v0*c.TypeLength:v1*c.TypeLength]...)
	case parquet.Int96:
		dst.Bytes = append(dst.Bytes, c.Bytes[v0*12:v1*12]...)
	}
}
