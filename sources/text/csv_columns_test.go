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

// TestCSVColumnsHoldCSVRecords reads CSV files, with quoted fields
// across lines, nulls and a Hive column, as column batches and as records, at
// several chunk sizes and parallelisms: row for row the same IDs, the
// same text, nulls in the same places, and batches of at most a chunk,
// also where a batch reuses the buffers of one released before it.
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
	released, reused := map[uintptr]bool{}, false // the batches' buffers, by their address
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
			// Released, the batch's buffers go to later batches: theirs
			// must hold their own rows all the same.
			at := uintptr(unsafe.Pointer(unsafe.SliceData(b.Columns[1].Offsets)))
			reused = reused || released[at]
			released[at] = true
			b.Release()
		}
		if n != len(recs) || n != 2200 {
			t.Fatalf("%+v: %d rows in batches, %d records", v, n, len(recs))
		}
	}
	if !reused {
		t.Fatalf("no batch took the buffers of one released before it (%d batches)", len(released))
	}
}

// TestCSVColumnsWideFiles: a header of 65,536 columns is read as batches
// of a few rows, in bounded memory (measured in a child process), and a
// header of more columns is refused with an error naming the file.
func TestCSVColumnsWideFiles(t *testing.T) {
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
	got := testutil.RunChild(t, "TestHelperCSVColumnsWide", wide)
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
	err := flow.From(text.CSVColumns(wider)).To(sinks.Count[*parquet.ColumnBatch](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "wider.csv: the header has 65537 columns; column batches (CSVColumns) take at most 65536") {
		t.Fatalf("65,537 columns: %v", err)
	}
}

// TestHelperCSVColumnsWide is the child of TestCSVColumnsWideFiles: it
// reports the rows of the batches.
func TestHelperCSVColumnsWide(t *testing.T) {
	dir := testutil.ChildArg(t)
	if err := testutil.LimitAddressSpace(8 << 30); err != nil {
		t.Fatal(err)
	}
	var n int64
	err := flow.From(text.CSVColumns(dir)).To(sinks.ForEach(func(it flow.Item[*parquet.ColumnBatch]) error {
		if it.Value.NumRows > 16 {
			return fmt.Errorf("a batch of %d rows of 65,536 fields", it.Value.NumRows)
		}
		n += int64(it.Value.NumRows)
		return nil
	})).Run(context.Background())
	testutil.ReportRun(t, n, err)
}
