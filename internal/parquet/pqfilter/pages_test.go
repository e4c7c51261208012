package pqfilter

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/filter"
	ft "github.com/rowflow/rowflow/internal/filter/filtertest"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/testutil"
)

// pagedRow has columns whose pages hold rows in different places.
type pagedRow struct {
	ID   int64   `parquet:"id"`   // the row
	Name string  `parquet:"name"` // "n%04d" of the row
	Opt  *int64  `parquet:"opt,optional"`
	F    float64 `parquet:"f"`
}

// pagedFile writes 1000 pagedRows, one row group, in small pages: opt is
// null on rows 400 to 599 (so some of its pages hold only nulls) and
// row%50 elsewhere; f is the row, but NaN on rows 800 to 899.
func pagedFile(t *testing.T) (*pqcol.Reader, string) {
	rows := make([]pagedRow, 1000)
	for i := range rows {
		rows[i] = pagedRow{ID: int64(i), Name: fmt.Sprintf("n%04d", i), F: float64(i)}
		if i < 400 || i >= 600 {
			v := int64(i % 50)
			rows[i].Opt = &v
		}
		if i >= 800 && i < 900 {
			rows[i].F = math.NaN()
		}
	}
	path := filepath.Join(t.TempDir(), "paged.parquet")
	testutil.WriteParquet(t, path, rows, len(rows), parquet.PageBufferSize(256))
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
	return r, path
}

// pagesOf returns the row ranges of a column's pages.
func pagesOf(t *testing.T, r *pqcol.Reader, name string) [][2]int64 {
	t.Helper()
	c, ok := r.LookupLeaf(name)
	if !ok {
		t.Fatalf("no column %s", name)
	}
	index, err := r.OffsetIndex(t.Context(), 0, c)
	if err != nil || index == nil {
		t.Fatalf("column %s: offset index %v, %v", name, index, err)
	}
	var out [][2]int64
	for i, p := range index.PageLocations {
		end := r.NumRows(0)
		if i+1 < len(index.PageLocations) {
			end = index.PageLocations[i+1].FirstRowIndex
		}
		out = append(out, [2]int64{p.FirstRowIndex, end})
	}
	if len(out) < 8 {
		t.Fatalf("column %s has only %d pages", name, len(out))
	}
	return out
}

// pageOf returns the rows of the page of pages that holds row.
func pageOf(pages [][2]int64, row int64) [2]int64 {
	for _, p := range pages {
		if p[0] <= row && row < p[1] {
			return p
		}
	}
	panic("no page holds the row")
}

// rowsOf returns the rows of the pages from the one that holds row a to
// the one that holds row b.
func rowsOf(pages [][2]int64, a, b int64) [2]int64 {
	return [2]int64{pageOf(pages, a)[0], pageOf(pages, b)[1]}
}

// union merges ascending row ranges that touch.
func union(ranges ...[2]int64) [][2]int64 {
	var out [][2]int64
	for _, r := range ranges {
		if n := len(out); n > 0 && out[n-1][1] >= r[0] {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// pagesWhere returns the pages for which keep is true, merged.
func pagesWhere(pages [][2]int64, keep func(p [2]int64) bool) [][2]int64 {
	var out [][2]int64
	for _, p := range pages {
		if keep(p) {
			out = append(out, p)
		}
	}
	return union(out...)
}

// TestPageRanges checks the row ranges that the page index leaves for a
// filter, against the page boundaries of the file's columns.
func TestPageRanges(t *testing.T) {
	r, path := pagedFile(t)
	id, name, opt, f := pagesOf(t, r, "id"), pagesOf(t, r, "name"), pagesOf(t, r, "opt"), pagesOf(t, r, "f")
	within := func(lo, hi int64) func(p [2]int64) bool {
		return func(p [2]int64) bool { return p[0] >= lo && p[1] <= hi }
	}
	notNull := pagesWhere(opt, func(p [2]int64) bool { return !within(400, 600)(p) })
	if len(notNull) < 2 {
		t.Fatalf("opt has no page of nulls only: %v", opt)
	}
	allNaN := pagesWhere(f, within(800, 900))
	if len(allNaN) == 0 {
		t.Fatalf("f has no page of NaNs only: %v", f)
	}
	cases := []struct {
		f        *filter.Expr
		from, to int64
		want     [][2]int64
	}{
		{ft.Eq("id", 350), 0, 1000, [][2]int64{pageOf(id, 350)}},
		{ft.Between("id", 300, 399), 0, 1000, [][2]int64{rowsOf(id, 300, 399)}},
		{ft.Between("id", 300, 399), 320, 700, [][2]int64{{320, pageOf(id, 399)[1]}}},
		{ft.Between("id", 300, 399), 500, 700, nil},
		{ft.Or(ft.Lt("id", 50), ft.Ge("id", 950)), 0, 1000, [][2]int64{rowsOf(id, 0, 49), rowsOf(id, 950, 999)}},
		{ft.Not(ft.Between("id", 100, 899)), 0, 1000, [][2]int64{rowsOf(id, 0, 99), rowsOf(id, 900, 999)}},
		// Ranges of two columns' pages intersect.
		{ft.And(ft.Ge("id", 300), ft.Lt("name", "n0500")), 0, 1000, [][2]int64{{pageOf(id, 300)[0], pageOf(name, 499)[1]}}},
		// A page of nulls makes no comparison true, negated or not.
		{ft.Ge("opt", 0), 0, 1000, notNull},
		{ft.Not(ft.Lt("opt", 0)), 0, 1000, notNull},
		{ft.Or(ft.Eq("opt", 7), ft.Not(ft.Eq("opt", 7))), 0, 1000, notNull},
		// Pages of NaNs have NaN bounds, which are ignored.
		{ft.Lt("f", 50), 0, 1000, union(append([][2]int64{rowsOf(f, 0, 49)}, allNaN...)...)},
	}
	for _, c := range cases {
		p, err := Compile(c.f, File{Path: path}, r, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.PageRanges(t.Context(), r, 0, c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%v on rows [%d, %d): ranges %v, want %v", c.f, c.from, c.to, got, c.want)
		}
	}
}

// TestNarrow: Narrow drops pruned row groups and empty ranges, and cuts
// the others at the pages the filter may be true in.
func TestNarrow(t *testing.T) {
	r, path := pagedFile(t)
	id := pagesOf(t, r, "id")
	p, err := Compile(ft.Or(ft.Lt("id", 10), ft.Between("id", 500, 509)), File{Path: path}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		from, to int64
		want     [][2]int64
	}{
		{0, 1000, [][2]int64{pageOf(id, 0), rowsOf(id, 500, 509)}},
		{5, 5, nil},
		{505, 600, [][2]int64{{505, pageOf(id, 509)[1]}}},
	}
	for _, c := range cases {
		got, err := p.Narrow(t.Context(), r, 0, c.from, c.to)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("rows [%d, %d): %v, %v; want %v", c.from, c.to, got, err, c.want)
		}
	}
	p.prune[0] = true
	if got, err := p.Narrow(t.Context(), r, 0, 0, 1000); err != nil || len(got) != 0 {
		t.Fatalf("a pruned row group: %v, %v", got, err)
	}
}

// TestPageStats checks the rules for reading a page's statistics.
func TestPageStats(t *testing.T) {
	typed := &pqformat.FileMetaData{ColumnOrders: []pqformat.ColumnOrder{{Value: new(pqformat.TypeDefinedOrder)}}}
	unknown := &pqformat.FileMetaData{ColumnOrders: []pqformat.ColumnOrder{{}}}
	str, signed := statInfo{leaf: 0, bytes: true}, statInfo{leaf: 0, signed: true}
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	pages := []pqformat.PageLocation{{FirstRowIndex: 0}, {FirstRowIndex: 10}}
	cases := []struct {
		name     string
		md       *pqformat.FileMetaData
		info     statInfo
		index    pqformat.ColumnIndex
		k        int
		want     colStats
		wantNull bool
	}{
		{"bounds", typed, signed, pqformat.ColumnIndex{NullPages: []bool{false, false},
			MinValues: [][]byte{one, one}, MaxValues: [][]byte{one, one}}, 1, colStats{min: one, max: one}, false},
		{"null page", typed, signed, pqformat.ColumnIndex{NullPages: []bool{false, true},
			MinValues: [][]byte{one, {}}, MaxValues: [][]byte{one, {}}}, 1, colStats{}, true},
		// The last page holds rows 10 to 24 of 25: fifteen nulls are all.
		{"null count", typed, signed, pqformat.ColumnIndex{NullPages: []bool{false, false},
			MinValues: [][]byte{one, one}, MaxValues: [][]byte{one, one}, NullCounts: []int64{0, 15}}, 1, colStats{}, true},
		{"some nulls", typed, signed, pqformat.ColumnIndex{NullPages: []bool{false, false},
			MinValues: [][]byte{one, one}, MaxValues: [][]byte{one, one}, NullCounts: []int64{9, 14}}, 1, colStats{min: one, max: one}, false},
		{"unknown order", unknown, signed, pqformat.ColumnIndex{NullPages: []bool{false, false},
			MinValues: [][]byte{one, one}, MaxValues: [][]byte{one, one}}, 0, colStats{}, false},
		{"empty strings", typed, str, pqformat.ColumnIndex{NullPages: []bool{false, false},
			MinValues: [][]byte{nil, nil}, MaxValues: [][]byte{nil, []byte("b")}}, 0, colStats{min: []byte{}, max: []byte{}}, false},
		{"a maximum of 0xff bytes", typed, str, pqformat.ColumnIndex{NullPages: []bool{false, false},
			MinValues: [][]byte{[]byte("a"), nil}, MaxValues: [][]byte{{0xff, 0xff}, nil}}, 0, colStats{}, false},
	}
	for _, c := range cases {
		got := pageStats(c.md, &c.info, &pageCol{pages: pages, index: &c.index, k: c.k}, 25)
		if got.allNull != c.wantNull || string(got.min) != string(c.want.min) || string(got.max) != string(c.want.max) ||
			(got.min == nil) != (c.want.min == nil) || (got.max == nil) != (c.want.max == nil) {
			t.Errorf("%s: %+v, want %+v (all null %v)", c.name, got, c.want, c.wantNull)
		}
	}
}
