package pqwrite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestWriterPageIndex checks every chunk's column and offset index, as
// parquet-go reads them, against the pages parquet-go decodes: page
// offsets, first rows, null counts and bounds in the column's order.
func TestWriterPageIndex(t *testing.T) {
	data := writeFile(t, testGroups(), testOptions()...)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for g, rg := range f.RowGroups() {
		for c, cc := range rg.ColumnChunks() {
			checkChunkIndex(t, g, c, cc, rg.NumRows())
		}
	}
}

func checkChunkIndex(t *testing.T, g, c int, cc parquet.ColumnChunk, rows int64) {
	t.Helper()
	ci, err := cc.ColumnIndex()
	if err != nil {
		t.Fatal(err)
	}
	oi, err := cc.OffsetIndex()
	if err != nil {
		t.Fatal(err)
	}
	typ := cc.Type()
	pages := cc.Pages()
	defer pages.Close()
	row := int64(0)
	i := 0
	for ; ; i++ {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= oi.NumPages() || i >= ci.NumPages() {
			t.Fatalf("rg %d col %d: page %d beyond the page index", g, c, i)
		}
		if oi.FirstRowIndex(i) != row {
			t.Errorf("rg %d col %d page %d: first row %d, want %d", g, c, i, oi.FirstRowIndex(i), row)
		}
		row += p.NumRows()
		if ci.NullCount(i) != p.NumNulls() {
			t.Errorf("rg %d col %d page %d: null count %d, want %d", g, c, i, ci.NullCount(i), p.NumNulls())
		}
		lo, hi, ok := p.Bounds()
		if ci.NullPage(i) == ok {
			t.Errorf("rg %d col %d page %d: null page %v with bounds %v", g, c, i, ci.NullPage(i), ok)
		}
		if ok && typ.Kind() == parquet.ByteArray {
			checkTruncated(t, lo.ByteArray(), hi.ByteArray(), ci.MinValue(i).ByteArray(), ci.MaxValue(i).ByteArray())
		} else if ok && (typ.Compare(lo, ci.MinValue(i)) != 0 || typ.Compare(hi, ci.MaxValue(i)) != 0) {
			t.Errorf("rg %d col %d page %d: bounds [%v, %v], want [%v, %v]",
				g, c, i, ci.MinValue(i), ci.MaxValue(i), lo, hi)
		}
		parquet.Release(p)
	}
	if i != oi.NumPages() || row != rows {
		t.Errorf("rg %d col %d: %d pages of %d rows, want %d pages of %d rows", g, c, i, row, oi.NumPages(), rows)
	}
}

// checkTruncated checks byte array bounds of the column index against a
// page's: they bound it, the minimum is its prefix, and they are at most
// indexSizeLimit long unless the maximum's prefix is all 0xFF.
func checkTruncated(t *testing.T, lo, hi, ciMin, ciMax []byte) {
	t.Helper()
	if !bytes.HasPrefix(lo, ciMin) || len(ciMin) != min(len(lo), indexSizeLimit) {
		t.Errorf("index minimum %q for page minimum %q", ciMin, lo)
	}
	allFF := len(hi) > indexSizeLimit && bytes.Count(hi[:indexSizeLimit], []byte{0xFF}) == indexSizeLimit
	if bytes.Compare(ciMax, hi) < 0 || len(ciMax) > indexSizeLimit && !allFF || allFF && !bytes.Equal(ciMax, hi) {
		t.Errorf("index maximum %q for page maximum %q", ciMax, hi)
	}
}

// TestWriterIndexTruncates checks the column index of long strings, and
// its boundary order.
func TestWriterIndexTruncates(t *testing.T) {
	schema := parquet.NewSchema("t", parquet.Group{
		"asc":  parquet.String(),
		"desc": parquet.String(),
		"ff":   parquet.Leaf(parquet.ByteArrayType),
		"mix":  parquet.Int(64),
	})
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, PageSize(64))
	if err != nil {
		t.Fatal(err)
	}
	cols := w.NewColumns()
	const n = 200
	for i := range n {
		cols[0].AppendString(fmt.Sprintf("%08d-ascending-and-long", i))
		cols[1].AppendString(fmt.Sprintf("%08d-descending-and-long", n-i))
		cols[2].AppendBytes(append(bytes.Repeat([]byte{0xFF}, 20), byte(i)))
		cols[3].Int64 = append(cols[3].Int64, int64(i*37%101))
	}
	f := writeOpen(t, w, &buf, cols)
	wantOrder := []string{"asc", "desc", "asc", "unordered"}
	for c, cc := range f.RowGroups()[0].ColumnChunks() {
		checkChunkIndex(t, 0, c, cc, n)
		ci, _ := cc.ColumnIndex()
		if ci.NumPages() < 10 {
			t.Errorf("column %d: %d pages, want many", c, ci.NumPages())
		}
		order := "unordered"
		if ci.IsAscending() {
			order = "asc"
		} else if ci.IsDescending() {
			order = "desc"
		}
		if order != wantOrder[c] {
			t.Errorf("column %d: boundary order %s, want %s", c, order, wantOrder[c])
		}
	}
}

// TestWriterStatistics checks chunk statistics where the order matters:
// unsigned integers above the signed maximum, and NaNs among floats.
func TestWriterStatistics(t *testing.T) {
	schema := parquet.NewSchema("t", parquet.Group{
		"u": parquet.Uint(64),
		"i": parquet.Int(32),
		"f": parquet.Leaf(parquet.FloatType),
		"d": parquet.Leaf(parquet.DoubleType),
		"n": parquet.Leaf(parquet.DoubleType), // all NaN
		"b": parquet.Leaf(parquet.BooleanType),
		"j": parquet.Int(64),
		"v": parquet.Uint(32),
	})
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	cols := w.NewColumns() // leaves in name order: b, d, f, i, j, n, u, v
	cols[0].Boolean = []bool{true, false, true, true}
	cols[1].Double = []float64{nan, 2, -1, nan}
	cols[2].Float = []float32{3, float32(nan), -7, 1}
	cols[3].Int32 = []int32{-5, 9, 0, -2}
	cols[4].Int64 = []int64{math.MinInt64, 9, 0, -2}
	cols[5].Double = []float64{nan, nan, nan, nan}
	cols[6].Int64 = []int64{1, -1, 5, math.MaxInt64} // -1 is the greatest uint64
	cols[7].Int32 = []int32{7, -3, 2, math.MaxInt32} // -3 is the greatest uint32
	f := writeOpen(t, w, &buf, cols)
	want := []struct{ min, max parquet.Value }{
		{parquet.BooleanValue(false), parquet.BooleanValue(true)},
		{parquet.DoubleValue(-1), parquet.DoubleValue(2)},
		{parquet.FloatValue(-7), parquet.FloatValue(3)},
		{parquet.Int32Value(-5), parquet.Int32Value(9)},
		{parquet.Int64Value(math.MinInt64), parquet.Int64Value(9)},
		{parquet.DoubleValue(nan), parquet.DoubleValue(nan)},
		{parquet.Int64Value(1), parquet.Int64Value(-1)},
		{parquet.Int32Value(2), parquet.Int32Value(-3)},
	}
	for i, cc := range f.RowGroups()[0].ColumnChunks() {
		st := f.Metadata().RowGroups[0].Columns[i].MetaData.Statistics
		gotMin, gotMax := st.MinValue, st.MaxValue
		wantMin := want[i].min.AppendBytes(nil)
		wantMax := want[i].max.AppendBytes(nil)
		if !bytes.Equal(gotMin, wantMin) || !bytes.Equal(gotMax, wantMax) {
			t.Errorf("column %d (%v): bounds [% x, % x], want [% x, % x]", i, cc.Type(), gotMin, gotMax, wantMin, wantMax)
		}
		checkChunkIndex(t, 0, i, cc, 4)
	}
}
