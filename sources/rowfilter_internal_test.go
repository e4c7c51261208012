package sources

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/dataset"
	"github.com/rowflow/rowflow/internal/pqcol"
	"github.com/rowflow/rowflow/internal/testutil"
)

func TestCmpIntFloatIsExact(t *testing.T) {
	ints := []struct {
		v    int64
		f    float64
		want int
	}{
		{2, 2.5, -1}, {3, 2.5, 1}, {2, 2, 0}, {-2, -2.5, 1}, {-3, -2.5, -1}, {0, math.Copysign(0, -1), 0},
		{math.MaxInt64, 0x1p63, -1}, {math.MinInt64, -0x1p63, 0}, {math.MinInt64, -0x1p64, 1},
		{1<<53 + 1, 0x1p53, 1}, {1<<53 - 1, 0x1p53, -1}, // float64(v) would round these to 2^53
		{5, math.Inf(1), -1}, {5, math.Inf(-1), 1},
	}
	for _, c := range ints {
		if got := cmpIntFloat(c.v, c.f); got != c.want {
			t.Errorf("cmpIntFloat(%d, %v) = %d, want %d", c.v, c.f, got, c.want)
		}
	}
	uints := []struct {
		v    uint64
		f    float64
		want int
	}{
		{0, -0.5, 1}, {0, 0, 0}, {1, 0.5, 1}, {math.MaxUint64, 0x1p64, -1}, {1<<60 + 1, 0x1p60, 1},
		{1 << 63, 0x1p63, 0}, {3, 3.25, -1},
	}
	for _, c := range uints {
		if got := cmpUintFloat(c.v, c.f); got != c.want {
			t.Errorf("cmpUintFloat(%d, %v) = %d, want %d", c.v, c.f, got, c.want)
		}
	}
}

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
		f     Filter
		prune []int // the row groups pruned
	}{
		{Lt("id", "250"), []int{3, 4, 5, 6, 7, 8, 9}},
		{Lt("id", "199.5"), []int{2, 3, 4, 5, 6, 7, 8, 9}},
		{Ge("id", "899.5"), []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{Ge("id", "898.5"), []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{Eq("id", "350"), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{Ne("id", "350"), none},
		{In("id", "5", "950"), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{Not(Between("id", "100", "899")), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{Or(Lt("id", "100"), Gt("id", "899")), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{And(Ge("id", "100"), Lt("id", "300")), []int{0, 3, 4, 5, 6, 7, 8, 9}},
		{Gt("u", "3000000000"), []int{0, 1, 2, 3, 4, 5, 6}},
		{Lt("u", "-1"), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{Eq("name", "xxx"), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{Lt("name", "x"), []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		// Every opt of row group k is k (or null): Ne is false on a row
		// group of one value, and a null group makes nothing true.
		{Eq("opt", "3"), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{Ne("opt", "3"), []int{3, 5}},
		{Not(Eq("opt", "3")), []int{3, 5}},
		{Not(Ne("opt", "3")), []int{0, 1, 2, 4, 5, 6, 7, 8, 9}},
		{In("opt", "3", "4"), []int{0, 1, 2, 5, 6, 7, 8, 9}},
		{Not(In("opt", "3", "4")), []int{3, 4, 5}},
		{Or(Eq("opt", "3"), Not(Eq("opt", "3"))), []int{5}},
		// Row group 9's NaN bounds are unusable: it may match anything.
		{Lt("f", "50"), []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{Eq("flag", "true"), []int{0, 1, 3, 4, 5, 6, 7, 8, 9}},
		{Ne("flag", "true"), []int{2}},
		{And(), none},
		{Or(), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, c := range cases {
		cfg := defaults("test")
		cfg.rowFilter = c.f
		p, err := compileRowFilter(dataset.File{Path: path, RelPath: "p.parquet"}, r, &cfg, nil)
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
