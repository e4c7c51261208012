package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// WriteParquet writes rows to path (creating its directory) with
// parquet-go's GenericWriter: zstd, row groups of rowGroupRows rows, and
// any further writer options. It fails the test on error.
func WriteParquet[T any](t testing.TB, path string, rows []T, rowGroupRows int, opts ...parquet.WriterOption) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opts = append([]parquet.WriterOption{parquet.Compression(&zstd.Codec{})}, opts...)
	w := parquet.NewGenericWriter[T](f, opts...)
	for len(rows) > 0 {
		n := min(rowGroupRows, len(rows))
		if _, err := w.Write(rows[:n]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		rows = rows[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// ReadParquet reads every row of path with parquet-go's GenericReader,
// the reference the fast readers are checked against.
func ReadParquet[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	out := make([]T, r.NumRows())
	for n := 0; n < len(out); {
		k, err := r.Read(out[n:])
		n += k
		if err != nil && n < len(out) {
			t.Fatalf("reading %s: %d of %d rows: %v", path, n, len(out), err)
		}
	}
	return out
}

// CorruptPages returns a copy of the Parquet file data with the last byte
// of the first column chunk of every row group flipped: a byte of page
// data, which the page's CRC (parquet-go writes one for every page) no
// longer matches. The footer is untouched, so the file still opens.
func CorruptPages(t testing.TB, data []byte) []byte {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		t.Fatalf("opening the file to corrupt: %v", err)
	}
	out := bytes.Clone(data)
	for _, rg := range f.Metadata().RowGroups {
		md := rg.Columns[0].MetaData
		start := md.DataPageOffset
		if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
			start = md.DictionaryPageOffset
		}
		out[start+md.TotalCompressedSize-1] ^= 0xff
	}
	return out
}
