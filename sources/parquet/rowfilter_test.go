package parquet_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Sorted has columns whose values rise with the row, so that the row
// groups' min/max ranges are disjoint, and columns with nulls and NaNs.
type Sorted struct {
	ID    int64   `parquet:"id"`    // file*1000 + row
	Group int32   `parquet:"grp"`   // the row group within the file
	Score float64 `parquet:"score"` // row/4 - 100
	Name  string  `parquet:"name"`  // "n%04d" of the row
	Opt   *int64  `parquet:"opt,optional"`
	U     uint32  `parquet:"u"` // row * 4e6: past 2^31
	Flag  bool    `parquet:"flag"`
	F32   float32 `parquet:"f32"` // NaN for every tenth row
}

const sortedGroupRows = 100

// sortedRows returns the rows of file k: 1000 rows, ten row groups. Opt is
// null on every seventh row and on all of row group 5.
func sortedRows(k int) []Sorted {
	rows := make([]Sorted, 1000)
	for i := range rows {
		r := Sorted{ID: int64(k*1000 + i), Group: int32(i / sortedGroupRows), Score: float64(i)/4 - 100,
			Name: fmt.Sprintf("n%04d", i), U: uint32(i) * 4_000_000, Flag: i%2 == 0, F32: float32(i) / 10}
		if i%7 != 0 && i/sortedGroupRows != 5 {
			v := int64(i % 50)
			r.Opt = &v
		}
		if i%10 == 3 {
			r.F32 = float32(math.NaN())
		}
		rows[i] = r
	}
	return rows
}

// sortedDataset writes two files of sortedRows.
func sortedDataset(t *testing.T) string {
	root := t.TempDir()
	for k := range 2 {
		testutil.WriteParquet(t, filepath.Join(root, fmt.Sprintf("part-%d.parquet", k)), sortedRows(k), sortedGroupRows)
	}
	return root
}

func optIs(r Sorted, v int64) bool { return r.Opt != nil && *r.Opt == v }

// rowFilterCases pairs filters with what they mean in plain Go, nulls and
// NaNs matching no comparison, not even a negated one.
var rowFilterCases = []struct {
	f    sources.Expr
	keep func(Sorted) bool
}{
	{sources.And(sources.Ge("id", 250), sources.Le("id", 1234)), func(r Sorted) bool { return r.ID >= 250 && r.ID <= 1234 }},
	{sources.Or(sources.Lt("id", 100), sources.Ge("id", 1950)), func(r Sorted) bool { return r.ID < 100 || r.ID >= 1950 }},
	{sources.Lt("id", 150.5), func(r Sorted) bool { return r.ID <= 150 }},
	{sources.Gt("id", -3.5), func(r Sorted) bool { return true }},
	{sources.Eq("id", 2.0), func(r Sorted) bool { return r.ID == 2 }},
	{sources.Lt("id", 1e3), func(r Sorted) bool { return r.ID < 1000 }},
	{sources.Eq("grp", 3), func(r Sorted) bool { return r.Group == 3 }},
	{sources.In("name", "n0005", "n0777", "zzz"), func(r Sorted) bool { return r.Name == "n0005" || r.Name == "n0777" }},
	{sources.Gt("name", "n09"), func(r Sorted) bool { return r.Name > "n09" }},
	{sources.Eq("opt", 7), func(r Sorted) bool { return optIs(r, 7) }},
	{sources.Not(sources.Eq("opt", 7)), func(r Sorted) bool { return r.Opt != nil && *r.Opt != 7 }},
	{sources.Ne("opt", 7), func(r Sorted) bool { return r.Opt != nil && *r.Opt != 7 }},
	{sources.Or(sources.Eq("opt", 7), sources.Not(sources.Eq("opt", 7))), func(r Sorted) bool { return r.Opt != nil }},
	{sources.Or(sources.Eq("opt", 7), sources.Lt("id", 10)), func(r Sorted) bool { return optIs(r, 7) || r.ID < 10 }},
	{sources.Not(sources.And(sources.Eq("opt", 7), sources.Lt("id", 600))), func(r Sorted) bool {
		return r.ID >= 600 || r.Opt != nil && *r.Opt != 7
	}},
	{sources.Gt("u", 3000000000), func(r Sorted) bool { return r.U > 3_000_000_000 }},
	{sources.Lt("u", -1), func(r Sorted) bool { return false }},
	{sources.Ge("u", -1), func(r Sorted) bool { return true }},
	{sources.Le("u", 8000000.5), func(r Sorted) bool { return r.U <= 8_000_000 }},
	{sources.Eq("flag", true), func(r Sorted) bool { return r.Flag }},
	{sources.Lt("f32", 5), func(r Sorted) bool { return !math.IsNaN(float64(r.F32)) && r.F32 < 5 }},
	{sources.Not(sources.Lt("f32", 5)), func(r Sorted) bool { return !math.IsNaN(float64(r.F32)) && r.F32 >= 5 }},
	{sources.Eq("f32", 0.1), func(r Sorted) bool { return r.F32 == float32(0.1) }},
	{sources.Ge("score", -1e1), func(r Sorted) bool { return r.Score >= -10 }},
	{sources.And(), func(r Sorted) bool { return true }},
	{sources.Or(), func(r Sorted) bool { return false }},
	{sources.In[int64]("id"), func(r Sorted) bool { return false }},
	{sources.Not(sources.In[int64]("opt")), func(r Sorted) bool { return true }},   // even where opt is null
	{sources.Not(sources.In[float32]("f32")), func(r Sorted) bool { return true }}, // even where f32 is NaN
	{sources.And(sources.Ge("id", 300), sources.Lt("id", 320), sources.Not(sources.In("id", 305, 306))),
		func(r Sorted) bool { return r.ID >= 300 && r.ID < 320 && r.ID != 305 && r.ID != 306 }},
}

// filtered is want filtered in plain Go.
func filtered(all []flow.Item[Sorted], keep func(Sorted) bool) []flow.Item[Sorted] {
	var out []flow.Item[Sorted]
	for _, it := range all {
		if keep(it.Value) {
			out = append(out, it)
		}
	}
	return out
}

func TestRowFilterKeepsWhatPlainGoKeeps(t *testing.T) {
	testutil.CheckGoroutines(t)
	root := sortedDataset(t)
	opts := []parquet.Option{parquet.MaxRows(64), sources.ChunkSize(10)}
	all := testutil.Items[Sorted](t, flow.From(parquet.Read[Sorted](root, opts...)))
	if len(all) != 2000 {
		t.Fatalf("%d rows, want 2000", len(all))
	}
	for _, c := range rowFilterCases {
		want := filtered(all, c.keep)
		for _, n := range []int{1, 2, 4} {
			got := testutil.Items[Sorted](t, flow.From(parquet.Read[Sorted](root, append(opts, parquet.RowFilter(c.f))...)).Parallel(n))
			if !reflect.DeepEqual(withoutNaN(got), withoutNaN(want)) {
				t.Fatalf("%v, parallelism %d: %d rows, want %d%s", c.f, n, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

// withoutNaN replaces NaNs, which reflect.DeepEqual finds unequal to
// themselves, by a number no row has.
func withoutNaN(items []flow.Item[Sorted]) []flow.Item[Sorted] {
	out := slices.Clone(items)
	for i := range out {
		if math.IsNaN(float64(out[i].Value.F32)) {
			out[i].Value.F32 = -1
		}
	}
	return out
}

func firstDiff(got, want []flow.Item[Sorted]) string {
	got, want = withoutNaN(got), withoutNaN(want)
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("; item %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	return ""
}

func TestRowFilterRecordsAndColumns(t *testing.T) {
	root := sortedDataset(t)
	all := testutil.Items[Sorted](t, flow.From(parquet.Read[Sorted](root, parquet.MaxRows(64))))
	for _, c := range rowFilterCases {
		want := filtered(all, c.keep)
		for _, n := range []int{1, 3} {
			opts := []parquet.Option{parquet.RowFilter(c.f), parquet.MaxRows(64), sources.ChunkSize(10)}
			recs := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, append(opts, parquet.Columns("id", "opt"))...)).Parallel(n))
			if len(recs) != len(want) {
				t.Fatalf("%v, records, parallelism %d: %d rows, want %d", c.f, n, len(recs), len(want))
			}
			for i, r := range recs {
				id, _ := r.Value.Get("id")
				opt, _ := r.Value.Get("opt")
				w := want[i]
				if r.ID != w.ID || r.Part != w.Part || id != w.Value.ID || (opt == nil) != (w.Value.Opt == nil) ||
					opt != nil && opt != *w.Value.Opt {
					t.Fatalf("%v, records, parallelism %d: record %d is %v %v (ID %v), want %+v (ID %v)", c.f, n, i, id, opt, r.ID, w.Value, w.ID)
				}
			}
			var ids []rowid.ID
			var vals []int64
			for _, it := range testutil.Items[*parquet.ColumnBatch](t, flow.From(parquet.Read[*parquet.ColumnBatch](root, append(opts, parquet.Columns("id"))...)).Parallel(n)) {
				b := it.Value
				if len(b.Columns) != 1 || b.Keep != nil && len(b.Keep) != b.NumRows {
					t.Fatalf("%v: batch with %d columns and %d Keep flags for %d rows", c.f, len(b.Columns), len(b.Keep), b.NumRows)
				}
				kept := 0
				for i := range b.NumRows {
					if b.Kept(i) {
						ids, vals = append(ids, b.RowID(i)), append(vals, b.Column("id").Int64[i])
						kept++
					}
				}
				if kept == 0 {
					t.Fatalf("%v: a batch with no rows kept", c.f)
				}
			}
			if len(ids) != len(want) {
				t.Fatalf("%v, columns, parallelism %d: %d rows kept, want %d", c.f, n, len(ids), len(want))
			}
			for i := range ids {
				if ids[i] != want[i].ID || vals[i] != want[i].Value.ID {
					t.Fatalf("%v, columns, parallelism %d: row %d is id %d (ID %v), want %d (ID %v)", c.f, n, i, vals[i], ids[i], want[i].Value.ID, want[i].ID)
				}
			}
		}
	}
}

// IDOnly reads one column; filters name others.
type IDOnly struct {
	Key int64  `parquet:"key"`
	Row int64  `parquet:"__row_index"`
	Grp int    `parquet:"__row_group"`
	Rel string `parquet:"__file"`
}

func TestRowFilterOnColumnsNotReturnedWithRenameAndTrace(t *testing.T) {
	root := sortedDataset(t)
	f := sources.And(sources.Or(sources.Lt("name", "n0300"), sources.Ge("name", "n0600")), sources.Gt("k", 500))
	for _, whole := range []bool{false, true} {
		opts := []parquet.Option{parquet.Rename("id", "k"), parquet.Rename("id", "key"), parquet.Trace(),
			parquet.RowFilter(f), sources.ChunkSize(7)}
		if whole {
			opts = append(opts, sources.WholeFiles())
		}
		var want []int64
		for k := range 2 {
			for _, r := range sortedRows(k) {
				if (r.Name < "n0300" || r.Name >= "n0600") && r.ID > 500 {
					want = append(want, r.ID)
				}
			}
		}
		for _, n := range []int{1, 2, 4} {
			got := testutil.Items[IDOnly](t, flow.From(parquet.Read[IDOnly](root, opts...)).Parallel(n))
			if len(got) != len(want) {
				t.Fatalf("whole files %v, parallelism %d: %d rows, want %d", whole, n, len(got), len(want))
			}
			for i, it := range got {
				v := it.Value
				file := fmt.Sprintf("part-%d.parquet", v.Key/1000)
				if v.Key != want[i] || v.Row != v.Key%1000 || v.Grp != int(v.Row/sortedGroupRows) || v.Rel != file ||
					it.ID != rowid.Ordinal(uint64(v.Row)).Combine(rowid.FromString(file)) {
					t.Fatalf("whole files %v, parallelism %d: row %d is %+v (ID %v), want id %d", whole, n, i, v, it.ID, want[i])
				}
			}
		}
	}
}

// TestRowFilterFillsChunksAndEndsPartitions: kept rows are packed into
// full chunks, only the last chunk of a partition may be short, and every
// partition ends, pruned or not.
func TestRowFilterFillsChunksAndEndsPartitions(t *testing.T) {
	root := sortedDataset(t)
	cases := []struct {
		f    sources.Expr
		rows int
	}{
		{sources.Eq("flag", true), 1000},
		{sources.Lt("id", 100), 100},
		{sources.Not(sources.In("grp", 2, 3)), 1600},
		{sources.Or(), 0},
	}
	for _, c := range cases {
		p := flow.From(parquet.Read[Sorted](root, parquet.RowFilter(c.f), sources.ChunkSize(8)))
		rows, ends := 0, 0
		short := false
		for ch, err := range flow.Chunks[Sorted](context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			if short {
				t.Fatalf("%v: a chunk of partition %d follows a short one", c.f, ch.Part)
			}
			rows += len(ch.Values)
			short = !ch.End && len(ch.Values) < 8
			if ch.End {
				ends++
			}
		}
		if rows != c.rows || ends != 20 {
			t.Fatalf("%v: %d rows and %d partition ends, want %d and 20", c.f, rows, ends, c.rows)
		}
	}
}

// corruptRowGroups overwrites the pages of the given row groups of a file
// with garbage, leaving the footer and its statistics intact.
func corruptRowGroups(t *testing.T, path string, groups ...int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := pq.OpenFile(strings.NewReader(string(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range groups {
		for _, cc := range f.Metadata().RowGroups[rg].Columns {
			start := cc.MetaData.DataPageOffset
			if d := cc.MetaData.DictionaryPageOffset; d > 0 && d < start {
				start = d
			}
			for i := range cc.MetaData.TotalCompressedSize {
				data[start+i] = 0xff
			}
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRowFilterNeverReadsPrunedRowGroups corrupts the pages of row groups
// that the statistics rule out: reading everything fails, but filtered
// reads never touch them. Row group 3 is ruled out by its ids; row group 5,
// whose opt column is all null, by the filter on opt, which a null fails
// whether negated or not.
func TestRowFilterNeverReadsPrunedRowGroups(t *testing.T) {
	testutil.CheckGoroutines(t)
	root := t.TempDir()
	path := filepath.Join(root, "sorted.parquet")
	rows := sortedRows(0)
	testutil.WriteParquet(t, path, rows, sortedGroupRows)
	corruptRowGroups(t, path, 3, 5)
	var count int64
	if err := flow.From(parquet.Read[sources.Record](root)).To(sinks.Count[sources.Record](&count)).Run(context.Background()); err == nil {
		t.Fatal("reading the corrupt row groups succeeded")
	}
	notThree := sources.Not(sources.And(sources.Ge("id", 300), sources.Le("id", 399)))
	cases := []struct {
		f    sources.Expr
		keep func(Sorted) bool
	}{
		{sources.Lt("id", 300), func(r Sorted) bool { return r.ID < 300 }},
		{sources.Or(sources.Lt("grp", 3), sources.Ge("name", "n0600")), func(r Sorted) bool { return r.Group < 3 || r.Group >= 6 }},
		{sources.And(notThree, sources.Eq("opt", 7)), func(r Sorted) bool { return optIs(r, 7) && r.Group != 3 }},
		{sources.And(notThree, sources.Not(sources.Eq("opt", 7))), func(r Sorted) bool {
			return r.Opt != nil && *r.Opt != 7 && r.Group != 3
		}},
		{sources.And(notThree, sources.Ge("opt", 0)), func(r Sorted) bool { return r.Opt != nil && r.Group != 3 }},
		{sources.And(notThree, sources.Lt("u", 2000000000)), func(r Sorted) bool { return r.U < 2e9 && r.Group != 3 && r.Group != 5 }},
	}
	for _, c := range cases {
		var want []int64
		for _, r := range rows {
			if c.keep(r) {
				want = append(want, r.ID)
			}
		}
		for _, whole := range []bool{false, true} {
			for _, n := range []int{1, 2, 4} {
				opts := []parquet.Option{parquet.RowFilter(c.f), parquet.MaxRows(30)}
				if whole {
					opts = append(opts, sources.WholeFiles())
				}
				var got []int64
				for _, it := range testutil.Items[Sorted](t, flow.From(parquet.Read[Sorted](root, opts...)).Parallel(n)) {
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
					t.Fatalf("%v, whole files %v, parallelism %d: %d structs, %d records, %d column rows; want %d",
						c.f, whole, n, len(got), len(recs), len(cols), len(want))
				}
			}
		}
	}
}

// JustID reads the column both test datasets have.
type JustID struct {
	ID int64 `parquet:"id"`
}

func TestRowFilterErrors(t *testing.T) {
	root := sortedDataset(t)
	hive, _ := hiveDataset(t)
	cases := []struct {
		root  string
		f     sources.Expr
		words []string
	}{
		{root, sources.Eq("nope", 1), []string{"part-0.parquet", `"nope"`, "no column"}},
		{root, sources.And(sources.Gt("id", 1), sources.Eq("id", "abc")), []string{"part-0.parquet", `"id"`, `string 'abc'`, "INT64"}},
		{root, sources.Eq("flag", "maybe"), []string{"part-0.parquet", `"flag"`, `string 'maybe'`, "BOOLEAN"}},
		{root, sources.Lt("score", true), []string{"part-0.parquet", `"score"`, "bool true", "DOUBLE"}},
		{root, sources.Eq("flag", 1), []string{"part-0.parquet", `"flag"`, "integer 1"}},
		{root, sources.Eq("name", 1.5), []string{"part-0.parquet", `"name"`, "floating-point 1.5", "BYTE_ARRAY"}},
		{root, sources.Eq("id", time.Unix(0, 0)), []string{"part-0.parquet", `"id"`, "time.Time timestamp '1970-01-01"}},
		{hive, sources.Eq("lang", "en"), []string{"part-0.parquet", `"lang"`, "Where"}},
		{hive, sources.Eq("tags", 1), []string{"part-0.parquet", `"tags"`, "repeated"}},
	}
	for _, c := range cases {
		for _, n := range []int{1, 2} {
			var count int64
			err := flow.From(parquet.Read[JustID](c.root, parquet.RowFilter(c.f))).Parallel(n).
				To(sinks.Count[JustID](&count)).Run(context.Background())
			if err == nil {
				t.Fatalf("%v: no error", c.f)
			}
			for _, w := range c.words {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("%v: error %q does not say %s", c.f, err, w)
				}
			}
		}
	}
	nan := sources.Lt("score", math.NaN())
	if err := flow.From(parquet.Read[JustID](root, parquet.RowFilter(nan))).To(sinks.Count[JustID](new(int64))).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "NaN literal") {
		t.Fatalf("RowFilter(%v): %v, want an error about the NaN literal", nan, err)
	}
	for _, f := range []sources.Expr{{}, sources.And(sources.Eq("id", 1), sources.Expr{}), sources.Not(sources.Expr{})} {
		var count int64
		err := flow.From(parquet.Read[JustID](root, parquet.RowFilter(f))).To(sinks.Count[JustID](&count)).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "zero Expr") {
			t.Fatalf("RowFilter(%v): %v, want an error about a zero Expr", f, err)
		}
		err = flow.From(parquet.Read[JustID](root, sources.Where(f))).To(sinks.Count[JustID](&count)).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "zero Expr") {
			t.Fatalf("Where(%v): %v, want an error about a zero Expr", f, err)
		}
	}
}

// TestRowFilterWithWhere combines a partition filter and a row filter, each
// given twice: the filters of one option are combined with And.
func TestRowFilterWithWhere(t *testing.T) {
	root, files := hiveDataset(t)
	got := testutil.Items[Row](t, flow.From(parquet.Read[Row](root,
		sources.Where(sources.Eq("lang", "en")), parquet.RowFilter(sources.Ge("small", 100)),
		parquet.RowFilter(sources.Eq("label", "l3")))).Parallel(3))
	want := 0
	for rel, rows := range files {
		for _, r := range rows {
			if strings.HasPrefix(rel, "lang=en/") && r.Small >= 100 && r.Label == "l3" {
				want++
			}
		}
	}
	if len(got) != want || want == 0 {
		t.Fatalf("%d rows, want %d", len(got), want)
	}
	for _, it := range got {
		if it.Value.Small < 100 || it.Value.Label != "l3" || it.Value.ID/100000/3 != 1 {
			t.Fatalf("row %+v does not match", it.Value)
		}
	}
}
