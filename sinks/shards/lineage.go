package shards

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/lineage"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/rowid"
)

// RowID returns the row ID that the three columns of [RowIDColumn](name)
// hold in a row of a Parquet file: key1, key2 and ord are the row's
// values of the columns name_key1, name_key2 and name_ord. It is how a
// job that reads the files back gets each row's ID, to give to
// operators.SetIDs:
//
//	operators.SetIDs(func(r Stored) rowid.ID { return shards.RowID(r.Key1, r.Key2, r.Ord) })
//
// The ID is exactly the one the row had when it was written, whatever
// the three values; see [RowIDColumn] for what they are.
func RowID(key1, key2, ord uint64) rowid.ID {
	return lineage.Join(lineage.Triple{Key1: key1, Key2: key2, Ord: ord})
}

// rowIDNames returns the names of the row-ID columns of a Parquet file
// written with RowIDColumn(name).
func rowIDNames(name string) []string {
	return []string{name + lineage.Key1, name + lineage.Key2, name + lineage.Ord}
}

// rowIDNode is the node of each row-ID column: required INT64, unsigned,
// DELTA_BINARY_PACKED, which stores a run of one value, or of steps of
// one, in a few bits per 128 rows.
func rowIDNode() parquet.Node {
	return parquet.Encoded(parquet.Uint(64), &parquet.DeltaBinaryPacked)
}

// withRowIDColumns returns T's schema with the row-ID columns
// (rowIDNames) after T's columns. It derives the schema from a struct type
// made of T's exported fields and three uint64 fields, so that the columns
// of T keep their order, types and options, then checks that they did.
func withRowIDColumns(t reflect.Type, ts *parquet.Schema, name string) (*parquet.Schema, error) {
	names := rowIDNames(name)
	for _, f := range ts.Fields() {
		if slices.Contains(names, f.Name()) {
			return nil, fmt.Errorf("shards: RowIDColumn(%q): %v already has a column %q", name, t, f.Name())
		}
	}
	var fields []reflect.StructField
	goNames := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag, Anonymous: f.Anonymous})
		goNames[f.Name] = true
	}
	goName := func(base string) string {
		for goNames[base] {
			base += "X"
		}
		goNames[base] = true
		return base
	}
	u64 := reflect.TypeFor[uint64]()
	for i, n := range names {
		fields = append(fields, reflect.StructField{Name: goName(fmt.Sprintf("RowID%d", i)), Type: u64, Tag: reflect.StructTag(fmt.Sprintf("parquet:%q", n+",delta"))})
	}
	ws := parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Elem().Interface())
	tc, wc := ts.Columns(), ws.Columns()
	ok := len(wc) == len(tc)+len(names)
	for i := 0; ok && i < len(wc); i++ {
		if i < len(tc) {
			ok = slices.Equal(tc[i], wc[i])
		} else {
			ok = slices.Equal(wc[i], []string{names[i-len(tc)]})
		}
	}
	if !ok {
		return nil, fmt.Errorf("shards: RowIDColumn(%q): cannot add the columns to the schema of %v", name, t)
	}
	return parquet.NewSchema(ts.Name(), ws), nil
}

// withRecordRowIDColumns returns the columns cols of a [Schema] (or of
// the schema of a struct that rowflow's writer writes) named schemaName
// with the row-ID columns after them.
func withRecordRowIDColumns(schemaName string, cols []pqschema.Column, name string) (*parquet.Schema, error) {
	names := rowIDNames(name)
	for _, c := range cols {
		if slices.Contains(names, c.Name) {
			return nil, fmt.Errorf("shards: RowIDColumn(%q): the schema already has a column %q", name, c.Name)
		}
	}
	cols = slices.Clip(cols)
	for _, n := range names {
		cols = append(cols, pqschema.Column{Name: n, Node: rowIDNode()})
	}
	return pqschema.New(schemaName, cols...), nil
}

// rowIDEncoder appends the row-ID columns of a file's rows to their
// parquet.Rows. One serves one file: it learns the file's scopes (see
// package internal/io/lineage).
type rowIDEncoder struct {
	enc     lineage.Encoder
	triples []lineage.Triple
	col     int // index of the first row-ID column
}

// encode prepares the row-ID values of ids, the IDs of the next batch.
func (e *rowIDEncoder) encode(ids flow.IDs) { e.triples = e.enc.Encode(ids, e.triples) }

// appendTo appends the row-ID values of row k of the batch to row.
func (e *rowIDEncoder) appendTo(row parquet.Row, k int) parquet.Row {
	t := e.triples[k]
	return append(row,
		parquet.Int64Value(int64(t.Key1)).Level(0, 0, e.col),
		parquet.Int64Value(int64(t.Key2)).Level(0, 0, e.col+1),
		parquet.Int64Value(int64(t.Ord)).Level(0, 0, e.col+2))
}

// appendColumns puts the row-ID values of row k of the batch to the
// row-ID columns of outs, one per column of the file.
func (e *rowIDEncoder) appendColumns(outs []colOut, k int) {
	t := e.triples[k]
	for j, v := range [...]uint64{t.Key1, t.Key2, t.Ord} {
		c := outs[e.col+j].c // a required INT64
		c.Int64 = append(c.Int64, int64(v))
	}
}

// rowWriter writes values of T with their row IDs as parquet.Rows: T's
// columns, deconstructed by T's schema, then the row-ID columns.
type rowWriter[T any] struct {
	w    *parquet.GenericWriter[any]
	t    *parquet.Schema
	ids  rowIDEncoder
	rows []parquet.Row
}

func (r *rowWriter[T]) write(vals []T, ids flow.IDs) error {
	if cap(r.rows) < len(vals) {
		r.rows = append(r.rows[:cap(r.rows)], make([]parquet.Row, len(vals)-cap(r.rows))...)
	}
	rows := r.rows[:len(vals)]
	r.ids.encode(ids)
	for i := range vals {
		rows[i] = r.ids.appendTo(r.t.Deconstruct(rows[i][:0], &vals[i]), i)
	}
	n, err := r.w.WriteRows(rows)
	if err == nil && n != len(rows) {
		err = fmt.Errorf("parquet-go wrote %d of %d rows", n, len(rows))
	}
	return err
}

func (r *rowWriter[T]) flush() error { return r.w.Flush() }
func (r *rowWriter[T]) size() int64  { return r.w.Size() }
func (r *rowWriter[T]) close() error { return r.w.Close() }
