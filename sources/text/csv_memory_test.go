package text_test

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// memoryCSV writes n records whose fields read by the fast path share
// their chunk's memory: short and empty fields, quoted ones with the
// delimiter and doubled quotes, fields longer than a quarter of a text
// block, non-ASCII text, and now and then a field that spans lines, which
// the rest of its part reads through encoding/csv.
func memoryCSV(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"id", "name", "note", "n"})
	for i := range n {
		name := fmt.Sprintf("name-%d", i)
		note := ""
		switch i % 11 {
		case 1:
			note = fmt.Sprintf("a, \"quoted\" %d", i)
		case 3:
			note = strings.Repeat(string(rune('a'+i%26)), 5000+i%7)
		case 5:
			note = fmt.Sprintf("ünïcødé %d", i)
		case 7:
			if i%1000 == 7 {
				note = fmt.Sprintf("two\nlines %d", i)
			}
		}
		w.Write([]string{fmt.Sprint(i), name, note, fmt.Sprint(i * 3)})
	}
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		t.Fatal(err)
	}
}

// referenceRecords reads path serially with encoding/csv: the records
// and IDs CSV[sources.Record] must give, null for an empty field.
func referenceRecords(t *testing.T, path, rel string) []flow.Item[sources.Record] {
	t.Helper()
	var out []flow.Item[sources.Record]
	names := readCSV(t, path, func(rec []string, ord uint64) {
		vals := make([]any, len(rec))
		for i, s := range rec {
			if s != "" {
				vals[i] = s
			}
		}
		out = append(out, flow.Item[sources.Record]{ID: rowid.Ordinal(ord).Combine(rowid.FromString(rel)), Value: sources.Record{Values: vals}})
	})
	for i := range out {
		out[i].Value.Names = names
	}
	return out
}

// TestCSVAsRecordsShareChunkMemory reads records whose strings, values and
// boxed strings share blocks of their chunk's memory, at partition sizes
// that cut the file anywhere and at every parallelism: each record is the
// serial read of encoding/csv (values of type string, nil for empty
// fields, IDs), the parallel runs give the serial run's partitions and
// IDs, and once all are read, writing to one record's values or
// appending to them changes no other record.
func TestCSVAsRecordsShareChunkMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	memoryCSV(t, path, 5000)
	want := referenceRecords(t, path, "a.csv")
	for _, size := range []int64{333, 64 << 10, 1 << 30} {
		var serial []flow.Item[sources.Record]
		for _, par := range []int{1, 2, 4} {
			what := fmt.Sprintf("PartitionBytes(%d) Parallel(%d)", size, par)
			got := testutil.Items[sources.Record](t, flow.From(text.CSV[sources.Record](dir, text.PartitionBytes(size), sources.ChunkSize(100))).Parallel(par))
			if len(got) != len(want) {
				t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.ID != w.ID || !slices.Equal(g.Value.Names, w.Value.Names) || !slices.Equal(g.Value.Values, w.Value.Values) {
					t.Fatalf("%s: record %d is %v %q %q, want %v %q %q", what, i, g.ID, g.Value.Names, g.Value.Values, w.ID, w.Value.Names, w.Value.Values)
				}
				for j, v := range g.Value.Values {
					if _, ok := v.(string); !ok && v != nil {
						t.Fatalf("%s: record %d value %d is a %T", what, i, j, v)
					}
				}
				if cap(g.Value.Values) != len(g.Value.Names) {
					t.Fatalf("%s: record %d: values of capacity %d, want %d", what, i, cap(g.Value.Values), len(g.Value.Names))
				}
			}
			if par == 1 {
				serial = got
			} else if !slices.EqualFunc(got, serial, func(a, b flow.Item[sources.Record]) bool { return a.Part == b.Part && a.ID == b.ID }) {
				t.Fatalf("%s: partitions or IDs differ from the serial run", what)
			}
			if size == 1<<30 {
				for i := range got {
					got[i].Value.Values[0] = "changed"
					got[i].Value.Values = append(got[i].Value.Values, "appended")
				}
				for i := range got {
					if got[i].Value.Values[1] != want[i].Value.Values[1] || got[i].Value.Values[3] != want[i].Value.Values[3] || got[i].Value.Values[4] != "appended" {
						t.Fatalf("%s: after writes, record %d is %q", what, i, got[i].Value.Values)
					}
				}
			}
		}
	}
}

// allocsPerRow returns the allocations per row of reading src to the end
// on one worker.
func allocsPerRow[T any](t *testing.T, src func() flow.Source[T], rows int) float64 {
	t.Helper()
	var n int64
	read := func() {
		n = 0
		if err := flow.From(src()).To(sinks.Count[T](&n)).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	read() // warm the chunk pools
	a := testing.AllocsPerRun(3, read)
	if n != int64(rows) {
		t.Fatalf("read %d rows, want %d", n, rows)
	}
	return a / float64(rows)
}

// TestCSVReadsWithoutAllocationPerRow: a record of short fields read by
// the fast path costs no allocation of its own, as records (its values,
// their strings and the anys holding them) and as a struct with a string
// field. (Before the chunk's memory, a record took six allocations and a
// struct with a string one.)
func TestCSVReadsWithoutAllocationPerRow(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 40,000 rows four times")
	}
	dir := t.TempDir()
	const rows = 40000
	var b strings.Builder
	b.WriteString("id,score,name,n\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d,%d.25,name-%d,%d\n", i, i%1000, i%977, i*7)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID    int64   `csv:"id"`
		Score float64 `csv:"score"`
		Name  string  `csv:"name"`
		N     int32   `csv:"n"`
	}
	recs := allocsPerRow(t, func() flow.Source[sources.Record] { return text.CSV[sources.Record](dir) }, rows)
	structs := allocsPerRow(t, func() flow.Source[row] { return text.CSV[row](dir) }, rows)
	t.Logf("allocations per row: %.3f as records, %.3f as structs", recs, structs)
	if recs > 0.1 {
		t.Errorf("records: %.3f allocations per row, want at most 0.1", recs)
	}
	if structs > 0.05 {
		t.Errorf("structs: %.3f allocations per row, want at most 0.05", structs)
	}
}

// BenchmarkCSVRead reads a CSV file of 200,000 rows of four short
// columns as structs and as records, on one worker and two.
func BenchmarkCSVRead(b *testing.B) {
	dir := b.TempDir()
	const rows = 200000
	var sb strings.Builder
	sb.WriteString("id,score,name,n\n")
	for i := range rows {
		fmt.Fprintf(&sb, "%d,%d.%03d,name_%d,%d\n", i*7, i%100000, i%1000, i%977, i*31%100000)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	type row struct {
		ID    int64   `csv:"id"`
		Score float64 `csv:"score"`
		Name  string  `csv:"name"`
		N     int32   `csv:"n"`
	}
	benchReads(b, rows, func() flow.Source[row] { return text.CSV[row](dir) },
		func() flow.Source[sources.Record] { return text.CSV[sources.Record](dir) })
}
