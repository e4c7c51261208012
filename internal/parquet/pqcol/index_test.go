package pqcol

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/internal/testutil"
)

// referenceIndexes returns the page indexes parquet-go reads from the file,
// per column chunk in row group order.
func referenceIndexes(t *testing.T, path string) ([]format.ColumnIndex, []format.OffsetIndex) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f.ColumnIndexes(), f.OffsetIndexes()
}

// sameColumnIndex compares column indexes field by field, an empty list
// equal to an absent one.
func sameColumnIndex(a, b *format.ColumnIndex) bool {
	bs := func(v [][]byte) []string {
		out := make([]string, len(v))
		for i := range v {
			out[i] = string(v[i])
		}
		return out
	}
	return slices.Equal(a.NullPages, b.NullPages) && slices.Equal(bs(a.MinValues), bs(b.MinValues)) &&
		slices.Equal(bs(a.MaxValues), bs(b.MaxValues)) && slices.Equal(a.NullCounts, b.NullCounts) &&
		a.BoundaryOrder == b.BoundaryOrder
}

// TestPageIndexesMatchParquetGo reads the page indexes of every column
// chunk of files from parquet-go (small pages, three row groups) and from
// other writers, and compares them with what parquet-go decodes.
func TestPageIndexesMatchParquetGo(t *testing.T) {
	gen := genFile(t, 2000, parquet.PageBufferSize(1024), parquet.MaxRowsPerRowGroup(700))
	paths := []string{gen, testutil.ParquetTestingFile(t, "data/alltypes_tiny_pages.parquet")}
	if dir, ok := testutil.LookupSharedCorpus(t); ok {
		paths = append(paths, filepath.Join(dir, "data/int32_with_null_pages.parquet"))
	} else {
		t.Logf("the shared corpus is not at %s: int32_with_null_pages.parquet left out", dir)
	}
	for _, path := range paths {
		r := openTest(t, path, filepath.Base(path))
		wantCI, wantOI := referenceIndexes(t, path)
		cols := len(r.Leaves())
		if len(wantOI) != r.NumRowGroups()*cols {
			t.Fatalf("%s: parquet-go read %d offset indexes", path, len(wantOI))
		}
		manyPages, nullPages, withCI := false, false, 0
		for rg := range r.NumRowGroups() {
			for c := range cols {
				oi, err := r.OffsetIndex(t.Context(), rg, c)
				if err != nil {
					t.Fatal(err)
				}
				ci, err := r.ColumnIndex(t.Context(), rg, c)
				if err != nil {
					t.Fatal(err)
				}
				if oi == nil {
					t.Fatalf("%s: row group %d column %d: no offset index", path, rg, c)
				}
				if ci == nil { // parquet-java writes none for INT96
					ci = &format.ColumnIndex{}
				} else {
					withCI++
				}
				if !reflect.DeepEqual([]format.PageLocation(oi.PageLocations), []format.PageLocation(wantOI[rg*cols+c].PageLocations)) {
					t.Fatalf("%s: row group %d column %d: offset index %+v, parquet-go reads %+v", path, rg, c, oi, wantOI[rg*cols+c])
				}
				if !sameColumnIndex(ci, &wantCI[rg*cols+c]) {
					t.Fatalf("%s: row group %d column %d: column index %+v, parquet-go reads %+v", path, rg, c, ci, wantCI[rg*cols+c])
				}
				manyPages = manyPages || len(oi.PageLocations) > 4
				nullPages = nullPages || slices.Contains(ci.NullPages, true)
				// The indexes are kept: a second call returns the same.
				oi2, _ := r.OffsetIndex(t.Context(), rg, c)
				ci2, _ := r.ColumnIndex(t.Context(), rg, c)
				if oi2 != oi || ci2 != nil && ci2 != ci {
					t.Fatalf("%s: a second call read the indexes again", path)
				}
			}
		}
		if withCI < r.NumRowGroups()*(cols-1) {
			t.Fatalf("%s: only %d column chunks have a column index", path, withCI)
		}
		if !manyPages {
			t.Fatalf("%s: no column chunk has more than four pages", path)
		}
		if strings.Contains(path, "null_pages") && !nullPages {
			t.Fatalf("%s: no page is marked as all null", path)
		}
	}
}

// TestNoPageIndex: files without page indexes give nil, nil.
func TestNoPageIndex(t *testing.T) {
	crafted := filepath.Join(t.TempDir(), "crafted.parquet")
	writeCrafted(t, crafted, spanRows(300, 1), craftOptions{rowsPerGroup: 100, pageEntries: 64})
	for _, path := range []string{crafted, testutil.ParquetTestingFile(t, "data/alltypes_plain.parquet")} {
		r := openTest(t, path, filepath.Base(path))
		for rg := range r.NumRowGroups() {
			for c := range r.Leaves() {
				oi, err1 := r.OffsetIndex(t.Context(), rg, c)
				ci, err2 := r.ColumnIndex(t.Context(), rg, c)
				if oi != nil || ci != nil || err1 != nil || err2 != nil {
					t.Fatalf("%s: row group %d column %d: %v %v %v %v, want nil", path, rg, c, oi, ci, err1, err2)
				}
			}
		}
	}
}

func TestPageIndexArguments(t *testing.T) {
	r := openTest(t, genFile(t, 100), "gen.parquet")
	for _, tc := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 99}} {
		_, err1 := r.OffsetIndex(t.Context(), tc[0], tc[1])
		_, err2 := r.ColumnIndex(t.Context(), tc[0], tc[1])
		for _, err := range []error{err1, err2} {
			var e *Error
			if !errors.Is(err, ErrArgument) || !errors.As(err, &e) || e.File != "gen.parquet" {
				t.Errorf("%v: got %v, want ErrArgument", tc, err)
			}
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.ColumnIndex(ctx, 0, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: got %v", err)
	}
}

// withIndex returns a copy of the Parquet file data whose column chunk
// (rg, col) has blob as its offset index (or, if column, its column
// index), stored just before the footer.
func withIndex(t *testing.T, data []byte, rg, col int, column bool, blob []byte) []byte {
	t.Helper()
	return rewriteFooter(t, data, blob, func(md *format.FileMetaData, at int64) {
		cc := &md.RowGroups[rg].Columns[col]
		if column {
			cc.ColumnIndexOffset, cc.ColumnIndexLength = at, int32(len(blob))
		} else {
			cc.OffsetIndexOffset, cc.OffsetIndexLength = at, int32(len(blob))
		}
	})
}

// rewriteFooter returns a copy of the Parquet file data with blob stored
// at offset at, just before the footer, and the footer changed by edit.
func rewriteFooter(t *testing.T, data, blob []byte, edit func(md *format.FileMetaData, at int64)) []byte {
	t.Helper()
	at := len(data) - 8 - footerLen(data)
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[at:len(data)-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md, int64(at))
	return appendFooter(t, append(bytes.Clone(data[:at]), blob...), &md)
}

// listBomb rewrites the thrift encoding of a struct whose first field is a
// list of one element so that the list claims 2^27 elements.
func listBomb(t *testing.T, b []byte) []byte {
	t.Helper()
	if len(b) < 2 || b[0] != 0x19 || b[1]>>4 != 1 {
		t.Fatalf("unexpected encoding %x", b)
	}
	out := []byte{0x19, 0xf0 | b[1]&0x0f}
	out = binary.AppendUvarint(out, 1<<27)
	return append(out, b[2:]...)
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := thrift.Marshal(new(thrift.CompactProtocol), v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBadPageIndexes: page indexes that lie outside the file, claim huge
// lists, disagree with each other or with the column chunk are reported
// as corrupt, naming the file, row group and column, without allocating
// for what they claim; range reads then scan rather than seek.
func TestBadPageIndexes(t *testing.T) {
	path := genFile(t, 1000, parquet.PageBufferSize(1024))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	good := openTest(t, path, "gen.parquet")
	oi, _ := good.OffsetIndex(t.Context(), 0, 0)
	ci, _ := good.ColumnIndex(t.Context(), 0, 0)
	if oi == nil || ci == nil || len(oi.PageLocations) < 4 {
		t.Fatal("want page indexes with several pages")
	}
	shortCI := *ci
	shortCI.NullPages, shortCI.MinValues, shortCI.MaxValues = ci.NullPages[1:], ci.MinValues[1:], ci.MaxValues[1:]
	shortCI.NullCounts = ci.NullCounts[1:]
	raggedCI := *ci
	raggedCI.MinValues = ci.MinValues[1:]
	outside := *oi
	outside.PageLocations = append([]format.PageLocation{}, oi.PageLocations...)
	outside.PageLocations[1].Offset = int64(len(data)) // beyond the chunk
	cases := []struct {
		name   string
		column bool
		blob   []byte
		what   string
	}{
		{"offset index bomb", false, listBomb(t, marshal(t, &format.OffsetIndex{PageLocations: oi.PageLocations[:1]})), "offset index"},
		{"column index bomb", true, listBomb(t, marshal(t, &format.ColumnIndex{NullPages: []bool{false},
			MinValues: [][]byte{{1}}, MaxValues: [][]byte{{2}}})), "column index"},
		{"truncated", false, marshal(t, oi)[:10], "offset index"},
		{"pages outside the chunk", false, marshal(t, &outside), "page locations"},
		{"fewer pages than the offset index", true, marshal(t, &shortCI), "the offset index"},
		{"lists of different lengths", true, marshal(t, &raggedCI), "minimums"},
	}
	for _, c := range cases {
		bad := withIndex(t, data, 0, 0, c.column, c.blob)
		r, err := Open("bad.parquet", bytes.NewReader(bad), int64(len(bad)))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = r.ColumnIndex(t.Context(), 0, 0) // reads the offset index too
		runtime.ReadMemStats(&after)
		var e *Error
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.File != "bad.parquet" || e.RowGroup != 0 ||
			e.Column != "id" || !strings.Contains(err.Error(), c.what) {
			t.Fatalf("%s: got %v, want a corruption error about the %s naming the column", c.name, err, c.what)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Fatalf("%s: allocated %d bytes", c.name, alloc)
		}
		// The data is still readable: by scanning if the offset index is bad.
		var col Column
		if err := r.ReadColumnRange(t.Context(), 0, 0, 900, 1000, &col); err != nil || col.Int64[0] != 900 {
			t.Fatalf("%s: reading rows 900 to 1000: %v", c.name, err)
		}
	}
	// Byte ranges that end beyond the file.
	for _, column := range []bool{false, true} {
		bad := rewriteFooter(t, data, nil, func(md *format.FileMetaData, at int64) {
			cc := &md.RowGroups[0].Columns[0]
			if column {
				cc.ColumnIndexLength = 1 << 30
			} else {
				cc.OffsetIndexLength = 1 << 30
			}
		})
		r, err := Open("bad.parquet", bytes.NewReader(bad), int64(len(bad)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.ColumnIndex(t.Context(), 0, 0); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "outside the") {
			t.Fatalf("an index beyond the file's end: got %v", err)
		}
	}
}
