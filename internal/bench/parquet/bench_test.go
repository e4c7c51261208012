package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources/parquet"
)

// TestVariantsAgree checks, on a small file of several row groups, that
// every read variant sees the rows that were written, and that every
// writer writes them.
func TestVariantsAgree(t *testing.T) {
	const n, groupRows = 20_000, 4096
	path := filepath.Join(t.TempDir(), "rows.parquet")
	if err := writeFile(path, n, groupRows); err != nil {
		t.Fatal(err)
	}
	want := makeRows(0, n)
	for _, v := range readVariants(path) {
		if got, err := v.run(t.Context(), t.TempDir()); err != nil || got != n {
			t.Errorf("%s: %d rows, %v; want %d", v.name, got, err, n)
		}
	}

	var generic []Row
	if _, err := scanGeneric(path, func(rs []Row) { generic = append(generic, clone(rs)...) }); err != nil {
		t.Fatal(err)
	}
	checkRows(t, "generic-reader", generic, want)
	for _, par := range []int{1, 2} {
		var got []Row
		for v, err := range flow.Values[Row](t.Context(), structs[Row](path, par)) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		checkRows(t, fmt.Sprintf("rowflow, Parallel(%d)", par), got, want)
	}
	var numeric []Numeric
	for v, err := range flow.Values[Numeric](t.Context(), structs[Numeric](path, 1)) {
		if err != nil {
			t.Fatal(err)
		}
		numeric = append(numeric, v)
	}
	for i, r := range want {
		if i >= len(numeric) || numeric[i] != (Numeric{ID: r.ID, Score: r.Score}) {
			t.Fatalf("rowflow-numeric: row %d is not %d, %v", i, r.ID, r.Score)
		}
	}
	checkColumns(t, path)
	checkSplit(t, path, want)

	for _, v := range writeVariants(want) {
		dir := t.TempDir()
		if got, err := v.run(t.Context(), dir); err != nil || got != n {
			t.Fatalf("%s: %d rows, %v; want %d", v.name, got, err, n)
		}
		checkRows(t, v.name, readBack(t, dir), want)
	}
}

// checkSplit checks the split variants' files, written beside path: the
// same rows, the first with page indexes and the second without, and the
// rows the source reads from them in ranges.
func checkSplit(t *testing.T, path string, want []Row) {
	t.Helper()
	indexed, noIndex, err := ensureSplitFiles(path, len(want))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path    string
		indexes bool
	}{{indexed, true}, {noIndex, false}} {
		pf, closeFile, err := openParquet(f.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, rg := range pf.Metadata().RowGroups {
			for _, c := range rg.Columns {
				if has := c.OffsetIndexOffset > 0; has != f.indexes {
					t.Errorf("%s: column %v has an offset index: %v, want %v", f.path, c.MetaData.PathInSchema, has, f.indexes)
				}
			}
		}
		closeFile()
		var rows []Row
		for v, err := range flow.Values[Row](t.Context(), flow.From(parquet.Read[Row](f.path, parquet.MaxRows(splitRows))).Parallel(2)) {
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, v)
		}
		checkRows(t, f.path, rows, want)
	}
	for _, v := range splitVariants(indexed, noIndex) {
		if got, err := v.run(t.Context(), ""); err != nil || got != int64(len(want)) {
			t.Errorf("%s: %d rows, %v; want %d", v.name, got, err, len(want))
		}
	}
}

// clone copies rows deeply: the generic reader reuses its buffer.
func clone(rows []Row) []Row {
	out := slices.Clone(rows)
	for i := range out {
		out[i].Tags = slices.Clone(out[i].Tags)
	}
	return out
}

func checkRows(t *testing.T, name string, got, want []Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", name, len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: row %d is %+v, want %+v", name, i, got[i], want[i])
		}
	}
}

// checkColumns checks that rowflow's column batches hold what the
// hand-written page loop copies out of the pages.
func checkColumns(t *testing.T, path string) {
	t.Helper()
	var batches []*parquet.ColumnBatch
	for b, err := range flow.Values[*parquet.ColumnBatch](t.Context(), flow.From(parquet.Read[*parquet.ColumnBatch](path))) {
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, b)
	}
	chunks := 0
	_, err := scanPages(path, 1, func(rg, c int, b *columnBuf) {
		chunks++
		if rg >= len(batches) || batches[rg].RowGroup != rg || c >= len(batches[rg].Columns) {
			t.Fatalf("row group %d column %d: no matching column batch", rg, c)
		}
		col := &batches[rg].Columns[c]
		same := slices.Equal(col.Int32, b.Int32) && slices.Equal(col.Int64, b.Int64) &&
			slices.Equal(col.Double, b.Double) && slices.Equal(col.Bytes, b.Bytes) &&
			(col.Kind != pq.ByteArray || slices.Equal(col.Offsets, b.Offsets)) &&
			slices.Equal(col.DefLevels, b.DefLevels) && slices.Equal(col.RepLevels, b.RepLevels)
		if !same {
			t.Errorf("row group %d column %s: the column batch differs from the pages", rg, col.Name)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if chunks != 5*len(batches) || chunks == 0 {
		t.Fatalf("%d column chunks read by the page loop for %d batches of 5 columns", chunks, len(batches))
	}
}

// readBack reads every Parquet file under dir with the generic reader and
// returns their rows ordered by ID.
func readBack(t *testing.T, dir string) []Row {
	t.Helper()
	var rows []Row
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".parquet" {
			return err
		}
		_, err = scanGeneric(p, func(rs []Row) { rows = append(rows, clone(rs)...) })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(rows, func(a, b Row) int { return cmp.Compare(a.ID, b.ID) })
	return rows
}

// benchRows is the size of the benchmarks' file: 8 row groups.
const benchRows = 8 * rowGroupRows

// benchDir holds the benchmarks' file, once written; TestMain removes it.
var benchDir string

var benchFile = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "pqbench-test-")
	if err != nil {
		return "", err
	}
	benchDir = dir
	path := filepath.Join(dir, "rows.parquet")
	return path, writeFile(path, benchRows, rowGroupRows)
})

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkRead runs every read variant; one op reads the benchRows-row
// file once.
func BenchmarkRead(b *testing.B) {
	path, err := benchFile()
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range readVariants(path) {
		b.Run(v.name, func(b *testing.B) { benchVariant(b, v, "") })
	}
}

// BenchmarkReadSplit reads the benchRows rows in data pages v1 in ranges
// of splitRows rows, from a file with page indexes and from one without;
// one op reads a file once.
func BenchmarkReadSplit(b *testing.B) {
	path, err := benchFile()
	if err != nil {
		b.Fatal(err)
	}
	indexed, noIndex, err := ensureSplitFiles(path, benchRows)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range splitVariants(indexed, noIndex) {
		b.Run(v.name, func(b *testing.B) { benchVariant(b, v, "") })
	}
}

// BenchmarkWrite runs every write variant; one op writes benchRows rows.
func BenchmarkWrite(b *testing.B) {
	rows := makeRows(0, benchRows)
	for _, v := range writeVariants(rows) {
		b.Run(v.name, func(b *testing.B) { benchVariant(b, v, b.TempDir()) })
	}
}

func benchVariant(b *testing.B, v variant, tmp string) {
	for b.Loop() {
		scratch := tmp
		if tmp != "" {
			b.StopTimer()
			var err error
			if scratch, err = os.MkdirTemp(tmp, "run-"); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		n, err := v.run(b.Context(), scratch)
		if err != nil || n != benchRows {
			b.Fatalf("%d rows, %v; want %d", n, err, benchRows)
		}
		if tmp != "" {
			b.StopTimer()
			os.RemoveAll(scratch)
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(b.N)*benchRows/b.Elapsed().Seconds(), "rows/s")
}
