package text_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// TestCSVBatchesHoldRecords reads CSV files, with quoted fields
// across lines, nulls and a Hive column, as column batches and as records, at
// several chunk sizes and parallelisms: row for row the same IDs, the
// same text, nulls in the same places, and batches of at most a chunk,
// also where a batch reuses the buffers of one released before it.
func TestCSVBatchesHoldRecords(t *testing.T) {
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
	released, reused := map[uintptr]bool{}, false // the batches' buffers, by their address
	for _, v := range []struct{ chunk, par int }{{1024, 1}, {100, 2}, {7, 4}} {
		opts := []text.CSVOption{text.NullString("NA"), sources.ChunkSize(v.chunk), text.PartitionBytes(9000)}
		recs := readRecords(t, text.CSV[sources.Record](root, opts...), v.par)
		if len(recs) != 2200 {
			t.Fatalf("%+v: %d records", v, len(recs))
		}
		same := func(s string, want any) bool { return want == any(s) }
		if batchesHoldRecords(t, fmt.Sprintf("%+v", v), recs, text.CSV[*parquet.ColumnBatch](root, opts...), v.par, v.chunk, 3, same, released) {
			reused = true
		}
	}
	if !reused {
		t.Fatalf("no batch took the buffers of one released before it (%d batches)", len(released))
	}
}

// TestCSVBatchesWideFiles: a header of 65,536 columns is read as batches
// of a few rows, in bounded memory (measured in a child process), and a
// header of more columns is refused with an error naming the file.
func TestCSVBatchesWideFiles(t *testing.T) {
	dir := t.TempDir()
	header := func(n int) string {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprint("c", i)
		}
		return strings.Join(names, ",") + "\n"
	}
	wide := filepath.Join(dir, "wide")
	if err := os.MkdirAll(wide, 0o755); err != nil {
		t.Fatal(err)
	}
	row := strings.Repeat(",", 1<<16-1) + "\n"
	if err := os.WriteFile(filepath.Join(wide, "w.csv"), []byte(header(1<<16)+strings.Repeat(row, 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	got := testutil.RunChild(t, "TestHelperCSVBatchesWide", wide)
	peak, _ := strconv.ParseInt(got["peak"], 10, 64)
	t.Logf("peak RSS %.1f MiB, %s rows: %s", float64(peak)/(1<<20), got["rows"], got["err"])
	if got["rows"] != "300" || got["err"] != "no error" {
		t.Errorf("65,536 columns: %s rows (want 300): %s", got["rows"], got["err"])
	}
	testutil.CheckPeak(t, got["peak"], 256<<20)

	wider := filepath.Join(dir, "wider.csv")
	if err := os.WriteFile(wider, []byte(header(1<<16+1)+strings.Repeat(",", 1<<16)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var n int64
	err := flow.From(text.CSV[*parquet.ColumnBatch](wider)).To(sinks.Count[*parquet.ColumnBatch](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "wider.csv: the header has 65537 columns; column batches (CSV[*parquet.ColumnBatch]) take at most 65536") {
		t.Fatalf("65,537 columns: %v", err)
	}
}

// TestHelperCSVBatchesWide is the child of TestCSVBatchesWideFiles: it
// reports the rows of the batches.
func TestHelperCSVBatchesWide(t *testing.T) {
	dir := testutil.ChildArg(t)
	if err := testutil.LimitAddressSpace(8 << 30); err != nil {
		t.Fatal(err)
	}
	var n int64
	err := flow.From(text.CSV[*parquet.ColumnBatch](dir)).To(sinks.ForEach(func(it flow.Item[*parquet.ColumnBatch]) error {
		if it.Value.NumRows > 16 {
			return fmt.Errorf("a batch of %d rows of 65,536 fields", it.Value.NumRows)
		}
		n += int64(it.Value.NumRows)
		return nil
	})).Run(context.Background())
	testutil.ReportRun(t, n, err)
}

// readRecords returns the items of src at parallelism par.
func readRecords(t *testing.T, src flow.Source[sources.Record], par int) []flow.Item[sources.Record] {
	t.Helper()
	var recs []flow.Item[sources.Record]
	for it, err := range flow.Items[sources.Record](t.Context(), flow.From(src).Parallel(par)) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, it)
	}
	return recs
}

// batchesHoldRecords reads the column batches of src at parallelism par
// and checks them row by row against recs, the records of the same
// files: the same IDs and partitions, each non-null value the record's
// value of the column's name (by same, given the value's text), a null
// where the record has none, no value the record lacks (its Hive column
// k aside, which is the batch's Partition), and batches of 1 to chunk
// rows (of cols columns, unless 0). It releases each batch, and reports
// whether one took the buffers of one released before it (by the
// address of its first column's offsets, kept in released).
func batchesHoldRecords(t *testing.T, label string, recs []flow.Item[sources.Record], src flow.Source[*parquet.ColumnBatch], par, chunk, cols int,
	same func(text string, want any) bool, released map[uintptr]bool) (reused bool) {
	t.Helper()
	n := 0
	for it, err := range flow.Items[*parquet.ColumnBatch](t.Context(), flow.From(src).Parallel(par)) {
		if err != nil {
			t.Fatal(err)
		}
		b := it.Value
		if b.NumRows < 1 || b.NumRows > chunk || it.ID != b.RowID(0) || cols > 0 && len(b.Columns) != cols {
			t.Fatalf("%s: a batch of %d rows, %d columns, ID %v for %v", label, b.NumRows, len(b.Columns), it.ID, b.RowID(0))
		}
		vals := make([]int, len(b.Columns)) // the next value of each column
		for i := range b.NumRows {
			rec := recs[n]
			if rec.ID != b.RowID(i) || rec.Part != it.Part {
				t.Fatalf("%s: row %d: ID %v in partition %d, records %v in %d", label, n, b.RowID(i), it.Part, rec.ID, rec.Part)
			}
			values := 0
			for k := range b.Columns {
				c := &b.Columns[k]
				want, _ := rec.Value.Get(c.Name)
				if c.DefLevels[i] == 0 {
					if want != nil {
						t.Fatalf("%s: row %d, %s: null, records %#v", label, n, c.Name, want)
					}
					continue
				}
				got := string(c.Bytes[c.Offsets[vals[k]]:c.Offsets[vals[k]+1]])
				vals[k]++
				values++
				if !same(got, want) {
					t.Fatalf("%s: row %d, %s: %q, records %#v", label, n, c.Name, got, want)
				}
			}
			for k, name := range rec.Value.Names {
				if name != "k" && rec.Value.Values[k] != nil {
					values--
				}
			}
			if values != 0 {
				t.Fatalf("%s: row %d: the batch's values are not the record's %v", label, n, rec.Value)
			}
			want, _ := rec.Value.Get("k")
			if got, ok := b.Partition["k"]; ok != (want != nil) || ok && want != got {
				t.Fatalf("%s: row %d: partition %q (%v), records %#v", label, n, got, ok, want)
			}
			n++
		}
		for k := range b.Columns {
			if c := &b.Columns[k]; c.Len() != vals[k] {
				t.Fatalf("%s: column %s: Len %d, %d values", label, c.Name, c.Len(), vals[k])
			}
		}
		// Released, the batch's buffers go to later batches: theirs
		// must hold their own rows all the same.
		at := uintptr(unsafe.Pointer(unsafe.SliceData(b.Columns[0].Offsets)))
		reused = reused || released[at]
		released[at] = true
		b.Release()
	}
	if n != len(recs) {
		t.Fatalf("%s: %d rows in batches, %d records", label, n, len(recs))
	}
	return reused
}
