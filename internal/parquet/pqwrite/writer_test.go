package pqwrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// testRow has a column of each kind the writer supports: required,
// optional, a LIST of int32 and an optional LIST of strings.
type testRow struct {
	ID    int64    `parquet:"id"`
	Name  *string  `parquet:"name,optional"`
	Score float64  `parquet:"score"`
	Ints  []int32  `parquet:"ints,list"`
	Tags  []string `parquet:"tags,optional,list"`
	U     uint32   `parquet:"u"`
	F     *float32 `parquet:"f,optional"`
	B     bool     `parquet:"b"`
}

// testRows returns n rows with nulls, empty and null lists and values
// that need the unsigned order, the same for the same n and seed.
func testRows(n, seed int) []testRow {
	rows := make([]testRow, n)
	for i := range rows {
		k := i + seed
		r := &rows[i]
		r.ID = int64(k)*7919 - 1<<40
		if k%5 != 0 {
			s := fmt.Sprintf("name-%d", k*31%1000)
			r.Name = &s
		}
		r.Score = float64(k) / 3
		for j := range k % 4 { // every fourth list empty
			r.Ints = append(r.Ints, int32(k*j)-100)
		}
		switch k % 6 {
		case 0: // null list
		case 1:
			r.Tags = []string{}
		default:
			for j := range k % 3 {
				r.Tags = append(r.Tags, fmt.Sprintf("t%d", (k+j)%17))
			}
			if r.Tags == nil {
				r.Tags = []string{""}
			}
		}
		r.U = uint32(k) * 2654435761
		if k%7 != 0 {
			f := float32(k%100) - 50
			r.F = &f
		}
		r.B = k%3 == 0
	}
	return rows
}

// shred fills the columns of the writer's leaves with rows.
func shred(t testing.TB, cols []*Column, rows []testRow) {
	t.Helper()
	for _, c := range cols {
		c.Reset()
	}
	for _, r := range rows {
		cols[0].Int64 = append(cols[0].Int64, r.ID)
		if r.Name != nil {
			cols[1].AppendString(*r.Name)
			cols[1].DefLevels = append(cols[1].DefLevels, 1)
		} else {
			cols[1].DefLevels = append(cols[1].DefLevels, 0)
		}
		cols[2].Double = append(cols[2].Double, r.Score)
		c := cols[3]
		if len(r.Ints) == 0 {
			c.DefLevels, c.RepLevels = append(c.DefLevels, 0), append(c.RepLevels, 0)
		}
		for j, v := range r.Ints {
			c.Int32 = append(c.Int32, v)
			c.DefLevels, c.RepLevels = append(c.DefLevels, 1), append(c.RepLevels, byte(min(j, 1)))
		}
		c = cols[4]
		switch {
		case r.Tags == nil:
			c.DefLevels, c.RepLevels = append(c.DefLevels, 0), append(c.RepLevels, 0)
		case len(r.Tags) == 0:
			c.DefLevels, c.RepLevels = append(c.DefLevels, 1), append(c.RepLevels, 0)
		}
		for j, v := range r.Tags {
			c.AppendString(v)
			c.DefLevels, c.RepLevels = append(c.DefLevels, 2), append(c.RepLevels, byte(min(j, 1)))
		}
		cols[5].Int32 = append(cols[5].Int32, int32(r.U))
		if r.F != nil {
			cols[6].Float = append(cols[6].Float, *r.F)
			cols[6].DefLevels = append(cols[6].DefLevels, 1)
		} else {
			cols[6].DefLevels = append(cols[6].DefLevels, 0)
		}
		cols[7].Boolean = append(cols[7].Boolean, r.B)
	}
}

// writeFile writes groups as row groups of one file and returns its bytes.
func writeFile(t testing.TB, groups [][]testRow, options ...Option) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, parquet.SchemaOf(testRow{}), options...)
	if err != nil {
		t.Fatal(err)
	}
	cols := w.NewColumns()
	for _, g := range groups {
		shred(t, cols, g)
		if err := w.WriteRowGroup(context.Background(), cols); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeOpen writes cols as one more row group of w, closes w, and opens
// the file that buf, w's output, then holds with parquet-go.
func writeOpen(t testing.TB, w *Writer, buf *bytes.Buffer, cols []*Column) *parquet.File {
	t.Helper()
	if err := w.WriteRowGroup(context.Background(), cols); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// testGroups returns three row groups of different sizes.
func testGroups() [][]testRow {
	return [][]testRow{testRows(3000, 0), testRows(1, 3000), testRows(2500, 3001)}
}

func testOptions() []Option {
	return []Option{Codec(NewZstd(zstd.SpeedDefault)), PageSize(2 << 10), KeyValue("k", "v")}
}

func TestWriterParquetGoReadsBack(t *testing.T) {
	groups := testGroups()
	data := writeFile(t, groups, testOptions()...)
	path := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	f, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.RowGroups()); got != len(groups) {
		t.Fatalf("%d row groups, want %d", got, len(groups))
	}
	if v, ok := f.Lookup("k"); !ok || v != "v" {
		t.Errorf("key k = %q, %v", v, ok)
	}
	r := parquet.NewGenericReader[testRow](f)
	got := make([]testRow, 0, 6000)
	buf := make([]testRow, 100)
	for {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := slices.Concat(groups...)
	if len(got) != len(want) {
		t.Fatalf("%d rows read, want %d", len(got), len(want))
	}
	for i := range want {
		if !equalRows(got[i], want[i]) {
			t.Fatalf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	pages := 0
	for _, cc := range f.RowGroups()[0].ColumnChunks() {
		oi, err := cc.OffsetIndex()
		if err != nil {
			t.Fatal(err)
		}
		pages += oi.NumPages()
	}
	if pages < 2*len(f.Schema().Columns()) {
		t.Errorf("%d pages in the first row group, want several per column", pages)
	}
}

// equalRows compares rows, an empty list as parquet-go reads it back.
func equalRows(a, b testRow) bool {
	return a.ID == b.ID && equalPtr(a.Name, b.Name) && a.Score == b.Score &&
		slices.Equal(a.Ints, b.Ints) && slices.Equal(a.Tags, b.Tags) &&
		(a.Tags == nil) == (b.Tags == nil) && a.U == b.U && equalPtr(a.F, b.F) && a.B == b.B
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func TestWriterPqcolReadsBack(t *testing.T) {
	groups := testGroups()
	data := writeFile(t, groups, testOptions()...)
	r, err := pqcol.Open("t.parquet", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]*Column, 8)
	for i := range want {
		want[i] = new(Column)
	}
	var got pqcol.Column
	for g, rows := range groups {
		shred(t, want, rows)
		for c, w := range want {
			if err := r.ReadColumn(context.Background(), g, c, &got); err != nil {
				t.Fatal(err)
			}
			if !sameColumn(&got, w) {
				t.Fatalf("row group %d, column %s: read back differs", g, got.Leaf.PathString())
			}
		}
	}
}

// sameColumn reports whether pqcol read back want: the same levels, and
// the same values, floats bit for bit (NaNs included) and INT96 values
// (which pqcol keeps apart) as their bytes.
func sameColumn(got *pqcol.Column, want *Column) bool {
	gotBytes := got.Bytes
	for _, v := range got.Int96 {
		gotBytes = parquet.Int96Value(v).AppendBytes(gotBytes)
	}
	return slices.Equal(got.Int64, want.Int64) && slices.Equal(got.Int32, want.Int32) &&
		slices.Equal(bitsOf(got.Double), bitsOf(want.Double)) && slices.Equal(bitsOf(got.Float), bitsOf(want.Float)) &&
		slices.Equal(got.Boolean, want.Boolean) && bytes.Equal(gotBytes, want.Bytes) &&
		(got.Leaf.Kind != parquet.ByteArray || slices.Equal(offsets(got.Offsets), offsets(want.Offsets))) &&
		bytes.Equal(got.DefLevels, want.DefLevels) && bytes.Equal(got.RepLevels, want.RepLevels)
}

// offsets returns byte array offsets, those of no values as [0].
func offsets(o []uint32) []uint32 {
	if len(o) == 0 {
		return []uint32{0}
	}
	return o
}

func TestWriterSameBytes(t *testing.T) {
	groups := testGroups()
	a := writeFile(t, groups, append(testOptions(), Concurrency(1))...)
	for _, n := range []int{2, 4, 8} {
		b := writeFile(t, groups, append(testOptions(), Concurrency(n))...)
		if !bytes.Equal(a, b) {
			t.Fatalf("concurrency %d: %d bytes differ from concurrency 1's %d", n, len(b), len(a))
		}
	}
}

// TestWriterPageSizes writes pages from one row each to one per chunk, and
// reads row ranges back with pqcol, which finds their pages by the offset
// index.
func TestWriterPageSizes(t *testing.T) {
	rows := testRows(500, 7)
	for _, size := range []int{1, 7, 100, 1 << 20} {
		data := writeFile(t, [][]testRow{rows}, PageSize(size))
		r, err := pqcol.Open("t.parquet", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]*Column, 8)
		for i := range want {
			want[i] = new(Column)
		}
		var got pqcol.Column
		for _, span := range [][2]int{{0, 500}, {0, 1}, {123, 124}, {250, 420}, {499, 500}} {
			shred(t, want, rows[span[0]:span[1]])
			for c, w := range want {
				err := r.ReadColumnRange(context.Background(), 0, c, int64(span[0]), int64(span[1]), &got)
				if err != nil {
					t.Fatal(err)
				}
				if !sameColumn(&got, w) {
					t.Fatalf("page size %d, rows %v, column %s: read back differs", size, span, got.Leaf.PathString())
				}
			}
		}
		oi, err := r.OffsetIndex(context.Background(), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if size == 1 && len(oi.PageLocations) != 500 || size == 1<<20 && len(oi.PageLocations) != 1 {
			t.Errorf("page size %d: %d pages", size, len(oi.PageLocations))
		}
	}
}
