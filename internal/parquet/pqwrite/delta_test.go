package pqwrite

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// TestWriterDeltaBinaryPacked: integer leaves whose schema node asks for
// DELTA_BINARY_PACKED (as the sinks' row-ID columns do) are written so,
// page by page, as is a column of close values (sequential, d); one of
// random values (c) stays PLAIN; all read back value for value.
func TestWriterDeltaBinaryPacked(t *testing.T) {
	schema := parquet.NewSchema("t", parquet.Group{
		"a": parquet.Encoded(parquet.Int(64), &parquet.DeltaBinaryPacked),
		"b": parquet.Optional(parquet.Encoded(parquet.Int(32), &parquet.DeltaBinaryPacked)),
		"c": parquet.Int(64),
		"d": parquet.Int(64),
	})
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, PageSize(1<<10))
	if err != nil {
		t.Fatal(err)
	}
	cols := w.NewColumns() // a, b, c, d: a Group orders its fields by name
	random := func(i int) int64 { return int64(uint64(i)*0x9e3779b97f4a7c15) >> 3 }
	const n = 5000
	for i := range n {
		cols[0].Int64 = append(cols[0].Int64, int64(i)*37-1<<40)
		if i%7 == 0 {
			cols[1].DefLevels = append(cols[1].DefLevels, 0)
		} else {
			cols[1].DefLevels = append(cols[1].DefLevels, 1)
			cols[1].Int32 = append(cols[1].Int32, int32(i%1000)-500)
		}
		cols[2].Int64 = append(cols[2].Int64, random(i))
		cols[3].Int64 = append(cols[3].Int64, 1_700_000_000_000+int64(i)*3+int64(i%2))
	}
	f := writeOpen(t, w, &buf, cols)
	want := []format.Encoding{format.DeltaBinaryPacked, format.DeltaBinaryPacked, format.Plain, format.DeltaBinaryPacked}
	for j, cc := range f.Metadata().RowGroups[0].Columns {
		if got := cc.MetaData.Encoding[0]; got != want[j] {
			t.Errorf("column %d: encodings %v, want %v first", j, cc.MetaData.Encoding, want[j])
		}
	}
	rows := make([]parquet.Row, n)
	r := f.RowGroups()[0].Rows()
	defer r.Close()
	if k, err := r.ReadRows(rows); k != n {
		t.Fatalf("read %d rows (%v), want %d", k, err, n)
	}
	for i, row := range rows {
		if a := row[0].Int64(); a != int64(i)*37-1<<40 {
			t.Fatalf("row %d: a = %d", i, a)
		}
		if null := i%7 == 0; row[1].IsNull() != null || (!null && row[1].Int32() != int32(i%1000)-500) {
			t.Fatalf("row %d: b = %v", i, row[1])
		}
		if c := row[2].Int64(); c != random(i) {
			t.Fatalf("row %d: c = %d", i, c)
		}
		if d := row[3].Int64(); d != 1_700_000_000_000+int64(i)*3+int64(i%2) {
			t.Fatalf("row %d: d = %d", i, d)
		}
	}
}
