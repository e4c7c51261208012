package text_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// TestCSVColumnsHoldCSVRecords reads CSV files, with quoted fields
// across lines, nulls and a Hive column, as column batches and as records, at
// several chunk sizes and parallelisms: row for row the same IDs, the
// same text, nulls in the same places, and batches of at most a chunk.
func TestCSVColumnsHoldCSVRecords(t *testing.T) {
	root := t.TempDir()
	for f, part := range []string{"k=a", "k=__HIVE_DEFAULT_PARTITION__"} {
		var b strings.Builder
		b.WriteString("id,name,note\n")
		for i := range 900 + f*400 {
			note := `"` + strings.ReplaceAll(fmt.Sprint("line ", i, `, "quoted"`, "\nnext"), `"`, `""`) + `"`
			if i%4 == 1 {
				note = "NA"
			}
			fmt.Fprintf(&b, "%d,n%d,%s\n", i, i%17, note)
		}
		dir := filepath.Join(root, part)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "data.csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []struct{ chunk, par int }{{1024, 1}, {100, 2}, {7, 4}} {
		opts := []text.CSVOption{text.NullString("NA"), sources.ChunkSize(v.chunk), text.PartitionBytes(9000)}
		var recs []flow.Item[sources.Record]
		for it, err := range flow.Items[sources.Record](t.Context(), flow.From(text.CSVRecords(root, opts...)).Parallel(v.par)) {
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, it)
		}
		n := 0
		for it, err := range flow.Items[*parquet.ColumnBatch](t.Context(), flow.From(text.CSVColumns(root, opts...)).Parallel(v.par)) {
			if err != nil {
				t.Fatal(err)
			}
			b := it.Value
			if b.NumRows < 1 || b.NumRows > v.chunk || it.ID != b.RowID(0) || len(b.Columns) != 3 {
				t.Fatalf("%+v: a batch of %d rows, %d columns, ID %v for %v", v, b.NumRows, len(b.Columns), it.ID, b.RowID(0))
			}
			vals := make([]int, len(b.Columns)) // the next value of each column
			for i := range b.NumRows {
				rec := recs[n]
				if rec.ID != b.RowID(i) || rec.Part != it.Part {
					t.Fatalf("%+v: row %d: ID %v in partition %d, records %v in %d", v, n, b.RowID(i), it.Part, rec.ID, rec.Part)
				}
				for k := range b.Columns {
					c := &b.Columns[k]
					var got any
					if c.DefLevels[i] == 1 {
						got = string(c.Bytes[c.Offsets[vals[k]]:c.Offsets[vals[k]+1]])
						vals[k]++
					}
					if want, _ := rec.Value.Get(c.Name); got != want {
						t.Fatalf("%+v: row %d, %s: %#v, records %#v", v, n, c.Name, got, want)
					}
				}
				want, _ := rec.Value.Get("k")
				if got, ok := b.Partition["k"]; ok != (want != nil) || ok && want != got {
					t.Fatalf("%+v: row %d: partition %q (%v), records %#v", v, n, got, ok, want)
				}
				n++
			}
			for k := range b.Columns {
				if c := &b.Columns[k]; c.Len() != vals[k] {
					t.Fatalf("%+v: column %s: Len %d, %d values", v, c.Name, c.Len(), vals[k])
				}
			}
		}
		if n != len(recs) || n != 2200 {
			t.Fatalf("%+v: %d rows in batches, %d records", v, n, len(recs))
		}
	}
}
