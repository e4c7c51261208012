package duckdb

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

type cell struct {
	X int32 `parquet:"x"`
	Y int32 `parquet:"y"`
}

// nestedSinkRow has the nested shapes that shards.Parquet writes with
// rowflow's struct writer: required, optional and repeated groups, a
// LIST of groups, a LIST of LISTs, a LIST of optional elements, an
// optional LIST, and a group holding a list.
type nestedSinkRow struct {
	ID    int64     `parquet:"id"`
	At    cell      `parquet:"at"`
	Maybe *cell     `parquet:"maybe"`
	Path  []cell    `parquet:"path"`
	Segs  []cell    `parquet:"segs,list"`
	Grid  [][]int32 `parquet:"grid,list"`
	Names []*string `parquet:"names,list"`
	Opt   []int64   `parquet:"opt,optional,list"`
	Inner struct {
		A []string `parquet:"a,list"`
		B *int32   `parquet:"b"`
	} `parquet:"inner"`
}

// TestDuckDBReadsNestedShards writes nested structs with shards.Parquet
// and reads every column back with DuckDB, as its text form of lists and
// structs, with nulls and empty lists at every level.
func TestDuckDBReadsNestedShards(t *testing.T) {
	rows := make([]nestedSinkRow, 3000)
	for i := range rows {
		r := &rows[i]
		r.ID, r.At = int64(i), cell{int32(i), int32(-i)}
		if i%3 != 0 {
			r.Maybe = &cell{int32(i % 7), int32(i % 11)}
		}
		for k := range i % 4 {
			c := cell{int32(i + k), int32(k)}
			r.Path, r.Segs = append(r.Path, c), append(r.Segs, c)
			var row []int32
			for j := range (i + k) % 3 {
				row = append(row, int32(i*j-k))
			}
			r.Grid = append(r.Grid, row)
			var name *string
			if (i+k)%3 != 1 {
				s := fmt.Sprint("n", (i+k)%5)
				name = &s
			}
			r.Names = append(r.Names, name)
			r.Inner.A = append(r.Inner.A, fmt.Sprint("a", k))
		}
		switch i % 3 {
		case 1:
			r.Opt = []int64{} // empty, not null
		case 2:
			r.Opt = []int64{int64(i) << 33, -1}
		}
		if i%2 == 0 {
			b := int32(i)
			r.Inner.B = &b
		}
	}
	dir := t.TempDir()
	err := flow.From(sources.Slice(rows)).To(shards.Parquet[nestedSinkRow](dir, shards.RowGroupRows(700), shards.RowIDColumn("rid"))).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"at", "maybe", "path", "segs", "grid", "names", "opt", "inner"}
	sel := []string{"id"}
	for _, c := range cols {
		sel = append(sel, fmt.Sprintf("%q::VARCHAR", c))
	}
	q := fmt.Sprintf("SELECT %s FROM read_parquet('%s', filename = true, file_row_number = true) ORDER BY filename, file_row_number",
		strings.Join(sel, ", "), filepath.Join(dir, "*.parquet"))
	res, err := openDuckDB(t).Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	n := 0
	for ; res.Next(); n++ {
		var id int64
		got := make([]sql.NullString, len(cols))
		ptrs := []any{&id}
		for i := range got {
			ptrs = append(ptrs, &got[i])
		}
		if err := res.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if n >= len(rows) || id != int64(n) {
			t.Fatalf("row %d: DuckDB reads id %d", n, id)
		}
		want := renderNested(rows[n])
		for c := range cols {
			g := null
			if got[c].Valid {
				g = got[c].String
			}
			if g != want[c] {
				t.Fatalf("row %d, column %s: DuckDB reads %s, rowflow wrote %s", n, cols[c], g, want[c])
			}
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(rows) {
		t.Fatalf("DuckDB reads %d rows, rowflow wrote %d", n, len(rows))
	}
}

// renderNested renders a row's columns after id as DuckDB casts them to
// VARCHAR.
func renderNested(r nestedSinkRow) []string {
	cellText := func(c cell) string { return fmt.Sprintf("{'x': %d, 'y': %d}", c.X, c.Y) }
	list := func(n int, elem func(k int) string) string {
		var b []string
		for k := range n {
			b = append(b, elem(k))
		}
		return "[" + strings.Join(b, ", ") + "]"
	}
	maybe, opt, b := null, null, "NULL"
	if r.Maybe != nil {
		maybe = cellText(*r.Maybe)
	}
	if r.Opt != nil {
		opt = list(len(r.Opt), func(k int) string { return fmt.Sprint(r.Opt[k]) })
	}
	if r.Inner.B != nil {
		b = fmt.Sprint(*r.Inner.B)
	}
	return []string{
		cellText(r.At),
		maybe,
		list(len(r.Path), func(k int) string { return cellText(r.Path[k]) }),
		list(len(r.Segs), func(k int) string { return cellText(r.Segs[k]) }),
		list(len(r.Grid), func(k int) string {
			return list(len(r.Grid[k]), func(j int) string { return fmt.Sprint(r.Grid[k][j]) })
		}),
		list(len(r.Names), func(k int) string {
			if r.Names[k] == nil {
				return "NULL"
			}
			return *r.Names[k]
		}),
		opt,
		fmt.Sprintf("{'a': %s, 'b': %s}", list(len(r.Inner.A), func(k int) string { return r.Inner.A[k] }), b),
	}
}
