package parquet_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// writePaged writes rows to path in row groups of groupRows rows and pages
// of a few dozen rows, with a page index (parquet-go writes one for every
// column).
func writePaged(t *testing.T, path string, rows []Sorted, groupRows int) {
	t.Helper()
	testutil.WriteParquet(t, path, rows, groupRows, pq.PageBufferSize(512))
}

// openPqcol opens a file with pqcol, for its page index.
func openPqcol(t *testing.T, path string) *pqcol.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	r, err := pqcol.Open(path, f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// pageRows returns the row ranges of the pages of a column chunk, by its
// offset index.
func pageRows(t *testing.T, r *pqcol.Reader, rg int, name string) (rows [][2]int64, pages []format.PageLocation) {
	t.Helper()
	c, ok := r.LookupLeaf(name)
	if !ok {
		t.Fatalf("no column %s", name)
	}
	index, err := r.OffsetIndex(t.Context(), rg, c)
	if err != nil || index == nil {
		t.Fatalf("column %s: offset index %v, %v", name, index, err)
	}
	for i, p := range index.PageLocations {
		end := r.NumRows(rg)
		if i+1 < len(index.PageLocations) {
			end = index.PageLocations[i+1].FirstRowIndex
		}
		rows = append(rows, [2]int64{p.FirstRowIndex, end})
	}
	return rows, index.PageLocations
}

// stripPageIndex rewrites a file's footer so that the named columns (all,
// if none is named) have no page index.
func stripPageIndex(t *testing.T, path string, columns ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = editFooter(t, data, func(md *format.FileMetaData, _ int64) []byte {
		for rg := range md.RowGroups {
			for i := range md.RowGroups[rg].Columns {
				cc := &md.RowGroups[rg].Columns[i]
				if len(columns) == 0 || slices.Contains(columns, strings.Join(cc.MetaData.PathInSchema, ".")) {
					cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0, 0, 0
				}
			}
		}
		return nil
	})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// editFooter returns a copy of the Parquet file data whose footer edit
// has changed. edit gets the decoded footer and the offset at which the
// footer starts, and returns bytes to write there, before the new footer
// (nil for none), which the footer may point into.
func editFooter(t *testing.T, data []byte, edit func(md *format.FileMetaData, at int64) []byte) []byte {
	t.Helper()
	size := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	body := data[:len(data)-8-size]
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[len(body):len(data)-8], &md); err != nil {
		t.Fatal(err)
	}
	extra := edit(&md, int64(len(body)))
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append(append([]byte(nil), body...), extra...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// pagedDatasets returns datasets of the two files of sortedRows in row
// groups of 500 rows and small pages: one with page indexes, and one in
// which file 0 has none for name and file 1 none at all.
func pagedDatasets(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, strip := range []bool{false, true} {
		root := t.TempDir()
		for k := range 2 {
			path := filepath.Join(root, fmt.Sprintf("part-%d.parquet", k))
			writePaged(t, path, sortedRows(k), 500)
			switch {
			case !strip:
				if pages, _ := pageRows(t, openPqcol(t, path), 0, "id"); len(pages) < 8 {
					t.Fatalf("column id has %d pages in its first row group", len(pages))
				}
			case k == 0:
				stripPageIndex(t, path, "name")
			default:
				stripPageIndex(t, path)
			}
		}
		out[map[bool]string{false: "page index", true: "partial page index"}[strip]] = root
	}
	return out
}

// TestRowFilterPagesKeepWhatPlainGoKeeps: with page indexes, whole or in
// part, every format returns what the unfiltered read filtered in plain
// Go does, with the same IDs, in any fragmentation and at any parallelism.
func TestRowFilterPagesKeepWhatPlainGoKeeps(t *testing.T) {
	testutil.CheckGoroutines(t)
	for name, root := range pagedDatasets(t) {
		// Fragments within row groups, and across them.
		frags := map[string][]parquet.Option{"max rows": {parquet.MaxRows(64)}, "whole files": {sources.WholeFiles()}}
		if name != "page index" {
			delete(frags, "whole files")
		}
		for fname, frag := range frags {
			all := testutil.Items[Sorted](t, flow.From(parquet.Read[Sorted](root, frag...)))
			if len(all) != 2000 {
				t.Fatalf("%s, %s: %d rows, want 2000", name, fname, len(all))
			}
			for _, c := range rowFilterCases {
				want := filtered(all, c.keep)
				for _, n := range []int{1, 2, 4} {
					opts := append([]parquet.Option{parquet.RowFilter(c.f), sources.ChunkSize(10)}, frag...)
					what := fmt.Sprintf("%s, %s, %v, parallelism %d", name, fname, c.f, n)
					got := testutil.Items[Sorted](t, flow.From(parquet.Read[Sorted](root, opts...)).Parallel(n))
					if !reflect.DeepEqual(withoutNaN(got), withoutNaN(want)) {
						t.Fatalf("%s: %d rows, want %d%s", what, len(got), len(want), firstDiff(got, want))
					}
					if n != 2 {
						checkRecordsAndColumns(t, what, root, opts, n, want)
					}
				}
			}
		}
	}
}

// checkRecordsAndColumns reads root as records and as column batches
// and checks the ids and IDs of the rows they keep against want.
func checkRecordsAndColumns(t *testing.T, what, root string, opts []parquet.Option, n int, want []flow.Item[Sorted]) {
	t.Helper()
	recs := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, append(opts, parquet.Columns("id"))...)).Parallel(n))
	if len(recs) != len(want) {
		t.Fatalf("%s, records: %d rows, want %d", what, len(recs), len(want))
	}
	for i, r := range recs {
		if id, _ := r.Value.Get("id"); id != want[i].Value.ID || r.ID != want[i].ID || r.Part != want[i].Part {
			t.Fatalf("%s, records: row %d is id %v (ID %v, partition %d), want %d (ID %v, partition %d)",
				what, i, id, r.ID, r.Part, want[i].Value.ID, want[i].ID, want[i].Part)
		}
	}
	i := 0
	for _, it := range testutil.Items[*parquet.ColumnBatch](t, flow.From(parquet.Read[*parquet.ColumnBatch](root, append(opts, parquet.Columns("id"))...)).Parallel(n)) {
		b := it.Value
		for r := range b.NumRows {
			id := b.Column("id").Int64[r]
			if id%1000 != b.FirstRow+int64(r) {
				t.Fatalf("%s, columns: row %d of a batch from row %d has id %d", what, r, b.FirstRow, id)
			}
			if !b.Kept(r) {
				continue
			}
			if i >= len(want) || id != want[i].Value.ID || b.RowID(r) != want[i].ID || it.Part != want[i].Part {
				t.Fatalf("%s, columns: kept row %d is id %d (ID %v)", what, i, id, b.RowID(r))
			}
			i++
		}
	}
	if i != len(want) {
		t.Fatalf("%s, columns: %d rows kept, want %d", what, i, len(want))
	}
}

// corruptPages overwrites the pages of every column chunk of row group 0,
// but those of the columns in spare, that hold only rows within the given
// ranges, leaving the page index and the footer intact. It returns how
// many pages of each column it overwrote.
func corruptPages(t *testing.T, path string, spare []string, ranges ...[2]int64) map[string]int {
	t.Helper()
	r := openPqcol(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, leaf := range r.Leaves() {
		if slices.Contains(spare, leaf.PathString()) {
			continue
		}
		rows, pages := pageRows(t, r, 0, leaf.PathString())
		for i, p := range pages {
			if !slices.ContainsFunc(ranges, func(rr [2]int64) bool { return rr[0] <= rows[i][0] && rows[i][1] <= rr[1] }) {
				continue
			}
			copy(data[p.Offset:p.Offset+int64(p.CompressedPageSize)], bytes.Repeat([]byte{0xff}, int(p.CompressedPageSize)))
			counts[leaf.PathString()]++
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return counts
}

// TestRowFilterNeverReadsPrunedPages corrupts, in every column, the pages
// whose rows the page index of a filter column rules out: reading
// everything fails, while filtered reads, in every format, fragmentation
// and parallelism, return the matching rows without touching them. The
// file has a single row group, which its statistics cannot prune.
func TestRowFilterNeverReadsPrunedPages(t *testing.T) {
	testutil.CheckGoroutines(t)
	cases := []struct {
		name  string
		f     sources.Expr
		keep  func(Sorted) bool
		nulls [2]int64 // rows whose opt is null, besides those of sortedRows
		strip []string // columns without a page index
		// pruned returns the rows that the page index rules out, given the
		// page rows of the id and opt columns.
		pruned func(id, opt [][2]int64) [][2]int64
	}{
		{"ids", sources.And(sources.Ge("id", 300), sources.Le("id", 399)), func(r Sorted) bool { return r.ID >= 300 && r.ID <= 399 },
			[2]int64{}, nil, idsPruned},
		// name has no page index: its chunk statistics stand for every page.
		{"ids, name without page index", sources.And(sources.And(sources.Ge("id", 300), sources.Le("id", 399)), sources.Ge("name", "n0000")),
			func(r Sorted) bool { return r.ID >= 300 && r.ID <= 399 }, [2]int64{}, []string{"name"}, idsPruned},
		// Pages whose opt values are all null are ruled out, whatever the
		// comparison.
		{"null pages", sources.Or(sources.Eq("opt", 7), sources.Not(sources.Eq("opt", 7))),
			func(r Sorted) bool { return r.Opt != nil }, [2]int64{300, 800}, nil, func(_, opt [][2]int64) [][2]int64 {
				var out [][2]int64
				for _, p := range opt {
					if p[0] >= 300 && p[1] <= 800 {
						out = append(out, p)
					}
				}
				return out
			}},
	}
	for _, c := range cases {
		rows := sortedRows(0)
		for i := c.nulls[0]; i < c.nulls[1]; i++ {
			rows[i].Opt = nil
		}
		root := t.TempDir()
		path := filepath.Join(root, "sorted.parquet")
		writePaged(t, path, rows, len(rows))
		r := openPqcol(t, path)
		id, _ := pageRows(t, r, 0, "id")
		opt, _ := pageRows(t, r, 0, "opt")
		// A column without an offset index is read by scanning the headers
		// of its pages from the first: its pages stay intact.
		counts := corruptPages(t, path, c.strip, c.pruned(id, opt)...)
		if counts["id"] == 0 || counts["score"] == 0 || counts["opt"] == 0 {
			t.Fatalf("%s: overwrote %v pages", c.name, counts)
		}
		if len(c.strip) > 0 {
			stripPageIndex(t, path, c.strip...)
		}
		var count int64
		if err := flow.From(parquet.Read[sources.Record](root)).To(sinks.Count[sources.Record](&count)).Run(context.Background()); err == nil {
			t.Fatalf("%s: reading the corrupt pages succeeded", c.name)
		}
		var want []int64
		for _, r := range rows {
			if c.keep(r) {
				want = append(want, r.ID)
			}
		}
		frags := map[string][]parquet.Option{"row groups": nil, "max rows": {parquet.MaxRows(70)}, "whole files": {sources.WholeFiles()}}
		for fname, frag := range frags {
			for _, n := range []int{1, 2, 4} {
				opts := append([]parquet.Option{parquet.RowFilter(c.f)}, frag...)
				var got []int64
				for _, it := range testutil.Items[Sorted](t, flow.From(parquet.Read[Sorted](root, opts...)).Parallel(n)) {
					if it.ID != rowid.Ordinal(uint64(it.Value.ID)).Combine(rowid.FromString("sorted.parquet")) {
						t.Fatalf("%s, %s: id %d has ID %v", c.name, fname, it.Value.ID, it.ID)
					}
					got = append(got, it.Value.ID)
				}
				var recs []int64
				for _, it := range testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(n)) {
					id, _ := it.Value.Get("id")
					recs = append(recs, id.(int64))
				}
				var cols []int64
				for _, it := range testutil.Items[*parquet.ColumnBatch](t, flow.From(parquet.Read[*parquet.ColumnBatch](root, opts...)).Parallel(n)) {
					for i, id := range it.Value.Column("id").Int64 {
						if it.Value.Kept(i) {
							cols = append(cols, id)
						}
					}
				}
				if !slices.Equal(got, want) || !slices.Equal(recs, want) || !slices.Equal(cols, want) {
					t.Fatalf("%s, %s, parallelism %d: %d structs, %d records, %d column rows; want %d",
						c.name, fname, n, len(got), len(recs), len(cols), len(want))
				}
			}
		}
	}
}

// idsPruned returns the rows outside the id pages that hold ids 300 to
// 399 (id is the row).
func idsPruned(id, _ [][2]int64) [][2]int64 {
	var lo, hi int64
	for _, p := range id {
		if p[0] <= 300 && 300 < p[1] {
			lo = p[0]
		}
		if p[0] <= 399 && 399 < p[1] {
			hi = p[1]
		}
	}
	return [][2]int64{{0, lo}, {hi, 1000}}
}

// TestRowFilterPagesEndPartitions: every partition ends exactly once, with
// its last chunk, whether its pages are all ruled out, some are, or none;
// chunks hold up to ChunkSize rows, and their IDs are their rows'.
func TestRowFilterPagesEndPartitions(t *testing.T) {
	root := t.TempDir()
	for k := range 2 {
		writePaged(t, filepath.Join(root, fmt.Sprintf("part-%d.parquet", k)), sortedRows(k), 500)
	}
	cases := []struct {
		f    sources.Expr
		keep func(Sorted) bool
	}{
		{sources.Or(sources.And(sources.Ge("id", 130), sources.Le("id", 180)), sources.And(sources.Ge("id", 1610), sources.Le("id", 1700))),
			func(r Sorted) bool { return r.ID >= 130 && r.ID <= 180 || r.ID >= 1610 && r.ID <= 1700 }},
		{sources.And(sources.Ge("opt", 0), sources.Lt("name", "n0700")), func(r Sorted) bool { return r.Opt != nil && r.Name < "n0700" }},
		{sources.Eq("id", 1999), func(r Sorted) bool { return r.ID == 1999 }},
	}
	for _, c := range cases {
		for _, whole := range []bool{false, true} {
			opts := []parquet.Option{parquet.RowFilter(c.f), sources.ChunkSize(8), parquet.MaxRows(50)}
			parts := 40 // 2 files of 1000 rows in fragments of 50
			if whole {
				opts, parts = append(opts, sources.WholeFiles()), 2
			}
			ended := map[int64]bool{}
			var ids []int64
			for ch, err := range flow.Chunks[Sorted](context.Background(), flow.From(parquet.Read[Sorted](root, opts...))) {
				if err != nil {
					t.Fatal(err)
				}
				if ended[ch.Part] {
					t.Fatalf("%v: a chunk of partition %d follows its End chunk", c.f, ch.Part)
				}
				ended[ch.Part] = ch.End
				if len(ch.Values) > 8 || ch.IDs.Len() != len(ch.Values) {
					t.Fatalf("%v: a chunk of %d values and %d IDs", c.f, len(ch.Values), ch.IDs.Len())
				}
				for i, v := range ch.Values {
					file := fmt.Sprintf("part-%d.parquet", v.ID/1000)
					if ch.IDs.At(i) != rowid.Ordinal(uint64(v.ID%1000)).Combine(rowid.FromString(file)) {
						t.Fatalf("%v: id %d has ID %v", c.f, v.ID, ch.IDs.At(i))
					}
					ids = append(ids, v.ID)
				}
			}
			var want []int64
			for k := range 2 {
				for _, r := range sortedRows(k) {
					if c.keep(r) {
						want = append(want, r.ID)
					}
				}
			}
			if len(ended) != parts || slices.Contains(slices.Collect(maps.Values(ended)), false) || !slices.Equal(ids, want) {
				t.Fatalf("%v, whole files %v: %d partitions of %d ended; ids %v, want %v", c.f, whole, len(ended), parts, ids, want)
			}
		}
	}
}

// TestRowFilterPagesOtherWriters filters files that parquet-java wrote with
// page indexes (tiny pages; pages of nulls only) and checks the records
// against the unfiltered read filtered in plain Go.
func TestRowFilterPagesOtherWriters(t *testing.T) {
	num := func(r sources.Record, name string) (float64, bool) {
		switch v, _ := r.Get(name); v := v.(type) {
		case int32:
			return float64(v), true
		case int64:
			return float64(v), true
		case float32:
			return float64(v), true
		case float64:
			return v, true
		}
		return 0, false
	}
	str := func(r sources.Record, name string) string {
		switch v, _ := r.Get(name); v := v.(type) {
		case string:
			return v
		case []byte:
			return string(v)
		}
		return "\x00null"
	}
	between := func(name string, lo, hi float64) func(sources.Record) bool {
		return func(r sources.Record) bool { v, ok := num(r, name); return ok && v >= lo && v <= hi }
	}
	cases := []struct {
		file string
		f    sources.Expr
		keep func(sources.Record) bool
	}{
		{"alltypes_tiny_pages.parquet", sources.And(sources.Ge("id", 1000), sources.Le("id", 1100)), between("id", 1000, 1100)},
		{"alltypes_tiny_pages.parquet", sources.And(sources.Ge("int_col", 3), sources.Lt("bigint_col", 50)),
			func(r sources.Record) bool {
				return between("int_col", 3, 1e18)(r) && between("bigint_col", -1e18, 49.5)(r)
			}},
		{"alltypes_tiny_pages.parquet", sources.Eq("string_col", "5"), func(r sources.Record) bool { return str(r, "string_col") == "5" }},
		{"alltypes_tiny_pages.parquet", sources.Gt("date_string_col", "03/01/09"),
			func(r sources.Record) bool { return str(r, "date_string_col") > "03/01/09" }},
		{"alltypes_tiny_pages.parquet", sources.Or(sources.Lt("float_col", 1.1), sources.Gt("id", 7000)),
			func(r sources.Record) bool {
				return between("float_col", -1e18, 1.09)(r) || between("id", 7000.5, 1e18)(r)
			}},
		{"alltypes_tiny_pages.parquet", sources.Eq("bool_col", true), func(r sources.Record) bool { v, _ := r.Get("bool_col"); return v == true }},
		{"int32_with_null_pages.parquet", sources.Ge("int32_field", 0), between("int32_field", 0, 1e18)},
		{"int32_with_null_pages.parquet", sources.Not(sources.Lt("int32_field", 0)), between("int32_field", 0, 1e18)},
		{"int32_with_null_pages.parquet", sources.Or(sources.Lt("int32_field", -1000000), sources.Gt("int32_field", 1000000)),
			func(r sources.Record) bool {
				return between("int32_field", -1e18, -1000000.5)(r) || between("int32_field", 1000000.5, 1e18)(r)
			}},
	}
	type key struct {
		file string
		frag int
	}
	alls := map[key][]flow.Item[sources.Record]{}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := testutil.ParquetTestingFile(t, "data/"+c.file)
			for i, frag := range [][]parquet.Option{nil, {parquet.MaxRows(700)}} {
				all, ok := alls[key{c.file, i}]
				if !ok {
					all = testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](path, frag...)))
					alls[key{c.file, i}] = all
				}
				var want []flow.Item[sources.Record]
				for _, it := range all {
					if c.keep(it.Value) {
						want = append(want, it)
					}
				}
				if len(want) == 0 || len(want) == len(all) {
					t.Fatalf("%s: %v keeps %d of %d rows", c.file, c.f, len(want), len(all))
				}
				for _, n := range []int{1, 3} {
					got := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](path, append(frag, parquet.RowFilter(c.f))...)).Parallel(n))
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: %v, parallelism %d: %d rows, want %d", c.file, c.f, n, len(got), len(want))
					}
				}
			}
		})
	}
}

// TestRowFilterCorruptPageIndex: a column index that does not decode fails
// the fragments that need it, naming the file and column, while reads
// without a filter on the column, which do not use it, succeed.
func TestRowFilterCorruptPageIndex(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "sorted.parquet")
	writePaged(t, path, sortedRows(0), 500)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)), pq.SkipPageIndex(true))
	if err != nil {
		t.Fatal(err)
	}
	cc := f.Metadata().RowGroups[1].Columns[0] // id
	copy(data[cc.ColumnIndexOffset:], bytes.Repeat([]byte{0xff}, int(cc.ColumnIndexLength)))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(opts ...parquet.Option) (int64, error) { return countRecords(root, opts...) }
	if n, err := run(); err != nil || n != 1000 {
		t.Fatalf("no filter: %d rows, %v", n, err)
	}
	if n, err := run(parquet.RowFilter(sources.Ge("name", "n0600"))); err != nil || n != 400 {
		t.Fatalf("a filter on name: %d rows, %v", n, err)
	}
	_, err = run(parquet.RowFilter(sources.Ge("id", 600)))
	for _, w := range []string{"sorted.parquet", "row group 1", `"id"`, "column index"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("a filter on id: error %v does not say %s", err, w)
		}
	}
	// Row group 0 is pruned by its statistics, so its page index is not
	// read: only the fragment of row group 1 is skipped.
	var report sources.SkipReport
	if n, err := run(parquet.RowFilter(sources.Ge("id", 600)), sources.SkipBad(&report)); err != nil || n != 0 ||
		len(report.Skipped) != 1 || report.Skipped[0].RowGroup != 1 || report.RowsLost != 500 {
		t.Fatalf("skipping bad fragments: %d rows, %v, report %+v", n, err, report)
	}
}

// TestRowFilterNullPagesInRequiredColumn: a column index that says the
// pages of a required column hold only nulls (as parquet-mr 1.13 wrote
// for pages without statistics, in parquet-testing's
// datapage_v1-snappy-compressed-checksum.parquet) is ignored, and a filter
// on the column gives the rows that match, where it dropped every row of
// the pages without an error.
func TestRowFilterNullPagesInRequiredColumn(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "sorted.parquet")
	writePaged(t, path, sortedRows(0), 500)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = editFooter(t, data, func(md *format.FileMetaData, at int64) []byte {
		cc := &md.RowGroups[1].Columns[0] // id
		var index format.ColumnIndex
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[cc.ColumnIndexOffset:cc.ColumnIndexOffset+int64(cc.ColumnIndexLength)], &index); err != nil {
			t.Fatal(err)
		}
		for k := range index.NullPages {
			index.NullPages[k], index.MinValues[k], index.MaxValues[k] = true, []byte{}, []byte{}
		}
		index.NullCounts = nil
		nulls, err := thrift.Marshal(new(thrift.CompactProtocol), &index)
		if err != nil {
			t.Fatal(err)
		}
		cc.ColumnIndexOffset, cc.ColumnIndexLength = at, int32(len(nulls))
		return nulls
	})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(opts ...parquet.Option) (int64, error) { return countRecords(root, opts...) }
	if n, err := run(); err != nil || n != 1000 {
		t.Fatalf("no filter: %d rows, %v", n, err)
	}
	if n, err := run(parquet.RowFilter(sources.Ge("name", "n0600"))); err != nil || n != 400 {
		t.Fatalf("a filter on name: %d rows, %v", n, err)
	}
	for _, c := range []struct {
		f    sources.Expr
		want int64
	}{
		{sources.Ge("id", 600), 400},
		{sources.Lt("id", 600), 600},
		{sources.Eq("id", 750), 1},
		{sources.Gt("id", 999), 0},
	} {
		if n, err := run(parquet.RowFilter(c.f)); err != nil || n != c.want {
			t.Fatalf("RowFilter(%v): %d rows, %v; want %d", c.f, n, err, c.want)
		}
	}
}

// countRecords reads the dataset at root as records with opts and
// returns how many it read.
func countRecords(root string, opts ...parquet.Option) (int64, error) {
	var n int64
	err := flow.From(parquet.Read[sources.Record](root, opts...)).To(sinks.Count[sources.Record](&n)).Run(context.Background())
	return n, err
}
