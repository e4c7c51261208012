package pqfilter

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/filter"
	ft "github.com/rowflow/rowflow/internal/filter/filtertest"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/testutil"
)

func TestStatisticsBoundsFollowColumnOrders(t *testing.T) {
	le := func(v int64) []byte {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return b
	}
	md := &pqformat.FileMetaData{}
	signed := statInfo{leaf: 0, signed: true}
	str := statInfo{leaf: 0, bytes: true}
	cases := []struct {
		name     string
		info     statInfo
		orders   int // 0: none; 1: type-defined; 2: unknown
		st       pqformat.Statistics
		min, max string
		ok       bool
	}{
		{"new fields", signed, 1, pqformat.Statistics{MinValue: le(1), MaxValue: le(2)}, string(le(1)), string(le(2)), true},
		{"no column orders", signed, 0, pqformat.Statistics{MinValue: le(1), MaxValue: le(2)}, string(le(1)), string(le(2)), true},
		{"unknown column order", signed, 2, pqformat.Statistics{MinValue: le(1), MaxValue: le(2)}, "", "", false},
		{"deprecated, signed", signed, 0, pqformat.Statistics{Min: le(1), Max: le(2)}, string(le(1)), string(le(2)), true},
		{"deprecated, bytes", str, 0, pqformat.Statistics{Min: []byte("a"), Max: []byte("b")}, "", "", false},
		{"new over deprecated", str, 1, pqformat.Statistics{Min: []byte("x"), Max: []byte("y"), MinValue: []byte("a"), MaxValue: []byte("b")}, "a", "b", true},
		{"bytes without min", str, 1, pqformat.Statistics{MaxValue: []byte("b")}, "", "b", true},
		{"no bounds", signed, 1, pqformat.Statistics{NullCount: 3}, "", "", false},
	}
	for _, c := range cases {
		md.ColumnOrders = nil
		switch c.orders {
		case 1:
			md.ColumnOrders = append(md.ColumnOrders, pqformat.ColumnOrder{Value: new(pqformat.TypeDefinedOrder)})
		case 2:
			md.ColumnOrders = append(md.ColumnOrders, pqformat.ColumnOrder{})
		}
		minb, maxb, ok := bounds(md, &c.info, &c.st)
		if ok != c.ok || ok && (string(minb) != c.min || string(maxb) != c.max) {
			t.Errorf("%s: bounds %q %q %v, want %q %q %v", c.name, minb, maxb, ok, c.min, c.max, c.ok)
		}
	}
}

type pruneRow struct {
	ID   int64   `parquet:"id"`
	U    uint32  `parquet:"u"`
	Name string  `parquet:"name"`
	Opt  *int64  `parquet:"opt,optional"`
	F    float64 `parquet:"f"`
	Flag bool    `parquet:"flag"`
}

// TestRowFilterPrunesByStatistics checks which row groups the statistics
// rule out: ten row groups of 100 rows, ids 0…999; u = 4e6 per row; opt
// null on all of row group 5 and on row 0; f NaN on all of row group 9;
// flag true only in row group 2.
func TestRowFilterPrunesByStatistics(t *testing.T) {
	rows := make([]pruneRow, 1000)
	for i := range rows {
		rows[i] = pruneRow{ID: int64(i), U: uint32(i) * 4_000_000, Name: strings.Repeat("x", i/100), F: float64(i), Flag: i/100 == 2}
		if i/100 != 5 && i != 0 {
			v := int64(i / 100)
			rows[i].Opt = &v
		}
		if i/100 == 9 {
			rows[i].F = math.NaN()
		}
	}
	path := filepath.Join(t.TempDir(), "p.parquet")
	testutil.WriteParquet(t, path, rows, 100)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := pqcol.Open(path, f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	none := []int{}
	cases := []struct {
		f     *filter.Expr
		prune []int // the row groups pruned
	}{
		{ft.Lt("id", 250), []int{3, 4, 5, 6, 7, 8, 9}},
		{ft.Lt("id", 199.5), []int{2, 3, 4, 5, 6, 7, 8, 9}},
		{ft.Ge("id", 899.5), []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{ft.Ge("id", 898.5), []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{ft.Eq("id", 350), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{ft.Ne("id", 350), none},
		{ft.In("id", 5, 950), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{ft.Not(ft.Between("id", 100, 899)), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{ft.Or(ft.Lt("id", 100), ft.Gt("id", 899)), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{ft.And(ft.Ge("id", 100), ft.Lt("id", 300)), []int{0, 3, 4, 5, 6, 7, 8, 9}},
		{ft.Gt("u", 3000000000), []int{0, 1, 2, 3, 4, 5, 6}},
		{ft.Lt("u", -1), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{ft.Eq("name", "xxx"), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{ft.Lt("name", "x"), []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		// Every opt of row group k is k (or null): Ne is false on a row
		// group of one value, and a null group makes nothing true.
		{ft.Eq("opt", 3), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{ft.Ne("opt", 3), []int{3, 5}},
		{ft.Not(ft.Eq("opt", 3)), []int{3, 5}},
		{ft.Not(ft.Ne("opt", 3)), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{ft.In("opt", 3, 4), []int{0, 1, 2, 5, 6, 7, 8, 9}},
		{ft.Not(ft.In("opt", 3, 4)), []int{3, 4, 5}},
		{ft.Or(ft.Eq("opt", 3), ft.Not(ft.Eq("opt", 3))), []int{5}},
		// Row group 9's NaN bounds are unusable: it may match anything.
		{ft.Lt("f", 50), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{ft.Eq("flag", true), []int{0, 1, 3, 4, 5, 6, 7, 8, 9}},
		{ft.Ne("flag", true), []int{2}},
		{ft.And(), none},
		{ft.Or(), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, c := range cases {
		p, err := Compile(c.f, File{Path: path}, r, nil)
		if err != nil {
			t.Fatalf("%v: %v", c.f, err)
		}
		var got []int
		for rg, pruned := range p.prune {
			if pruned {
				got = append(got, rg)
			}
		}
		if !slices.Equal(got, c.prune) && len(got)+len(c.prune) > 0 {
			t.Errorf("%v: prunes row groups %v, want %v", c.f, got, c.prune)
		}
	}
}
