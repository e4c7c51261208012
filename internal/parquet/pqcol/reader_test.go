package pqcol

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/internal/testutil"
)

func genFile(t testing.TB, rows int, options ...parquet.WriterOption) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gen.parquet")
	writeGenerated(t, path, genRows(rows, 3), options...)
	return path
}

// TestFooterBombs: a few bytes of footer must not make Open allocate
// gigabytes. parquet-go alone allocates 2 GiB for the first file and 12 GiB
// (over half a minute) for the second.
func TestFooterBombs(t *testing.T) {
	lengthBomb := []byte("PAR1")
	lengthBomb = binary.LittleEndian.AppendUint32(lengthBomb, 0x7fffffff)
	lengthBomb = append(lengthBomb, "PAR1"...)

	md := format.FileMetaData{Version: 1, Schema: []format.SchemaElement{{Name: "s"}}}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(footer, []byte{0x19, 0x1c}) // the schema: a list of one struct
	if i < 0 {
		t.Fatalf("unexpected footer encoding %x", footer)
	}
	bomb := append([]byte{}, footer[:i+1]...)
	bomb = append(bomb, 0xfc) // a list of structs whose size follows
	bomb = binary.AppendUvarint(bomb, 1<<27)
	bomb = append(bomb, footer[i+2:]...)
	listBomb := append([]byte("PAR1"), bomb...)
	listBomb = binary.LittleEndian.AppendUint32(listBomb, uint32(len(bomb)))
	listBomb = append(listBomb, "PAR1"...)

	for name, data := range map[string][]byte{"length": lengthBomb, "list": listBomb} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Open(name, bytes.NewReader(data), int64(len(data)))
		runtime.ReadMemStats(&after)
		var e *Error
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.File != name {
			t.Fatalf("%s: got %v, want a corruption error naming the file", name, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Fatalf("%s: allocated %d bytes", name, alloc)
		}
	}
}

func TestEncryptedFooterUnsupported(t *testing.T) {
	data := []byte("PARE\x00\x00\x00\x00\x00\x00\x00\x00PARE")
	if _, err := Open("enc", bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("got %v, want ErrUnsupported", err)
	}
}

func TestArguments(t *testing.T) {
	r := openTest(t, genFile(t, 100), "gen.parquet")
	var col Column
	for _, tc := range []struct {
		rg, col  int
		from, to int64
	}{
		{-1, 0, 0, 1}, {1, 0, 0, 1}, {0, -1, 0, 1}, {0, 99, 0, 1},
		{0, 0, -1, 1}, {0, 0, 5, 4}, {0, 0, 0, 101},
	} {
		err := r.ReadColumnRange(t.Context(), tc.rg, tc.col, tc.from, tc.to, &col)
		var e *Error
		if !errors.Is(err, ErrArgument) || !errors.As(err, &e) || e.File != "gen.parquet" {
			t.Errorf("%+v: got %v, want ErrArgument", tc, err)
		}
	}
	if err := r.ReadColumnRange(t.Context(), 0, 0, 40, 40, &col); err != nil || col.NumRows != 0 || col.Len() != 0 {
		t.Fatalf("an empty range: %v, %d rows", err, col.NumRows)
	}
}

func TestContextCanceled(t *testing.T) {
	r := openTest(t, genFile(t, 100), "gen.parquet")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var col Column
	err := r.ReadColumn(ctx, 0, 0, &col)
	var e *Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Column != "id" || e.RowGroup != 0 {
		t.Fatalf("got %v, want context.Canceled naming row group 0 and column id", err)
	}
}

// TestColumnReuse reads the same chunks into one Column again and again: once
// grown, the buffers are reused, and a read allocates a few small objects
// whatever the number of rows.
func TestColumnReuse(t *testing.T) {
	r := openTest(t, genFile(t, 5000, parquet.Compression(&parquet.Zstd), parquet.PageBufferSize(4096)), "gen.parquet")
	for _, name := range []string{"id", "name", "list", "opt_name", "cat", "flag", "dname"} {
		c, ok := r.LookupLeaf(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		var col Column
		if err := r.ReadColumn(t.Context(), 0, c, &col); err != nil {
			t.Fatal(err)
		}
		first := flatOf(&col)
		data := unsafe.SliceData(col.Bytes)
		allocs := testing.AllocsPerRun(5, func() {
			if err := r.ReadColumn(t.Context(), 0, c, &col); err != nil {
				t.Fatal(err)
			}
		})
		if err := equalFlat(flatOf(&col), first); err != nil {
			t.Fatalf("%s: a second read differs: %v", name, err)
		}
		if col.Leaf.Kind == parquet.ByteArray && unsafe.SliceData(col.Bytes) != data {
			t.Fatalf("%s: the byte buffer was reallocated", name)
		}
		if allocs > 8 && !testutil.RaceEnabled {
			t.Fatalf("%s: %.0f allocations per read of %d rows", name, allocs, col.NumRows)
		}
		t.Logf("%s: %.0f allocations per read of %d rows", name, allocs, col.NumRows)
	}
}

// TestConcurrentReads reads all columns from one Reader on several
// goroutines at once and compares with a serial read.
func TestConcurrentReads(t *testing.T) {
	path := genFile(t, 3000, parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(2048), parquet.MaxRowsPerRowGroup(1000))
	r := openTest(t, path, "gen.parquet")
	want, err := readAll(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			var col Column
			for rg := range r.NumRowGroups() {
				for c := range r.Leaves() {
					from := int64(g * 97 % 1000)
					if err := r.ReadColumnRange(t.Context(), rg, c, from, 1000, &col); err != nil {
						errs <- err
						return
					}
					if err := equalFlat(normalize(flatOf(&col)), sliceRows(want[rg][c], &r.Leaves()[c], from, 1000)); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestNewReader wraps a file opened by the caller with parquet-go (page
// index read at open) and reads it like Open's.
func TestNewReader(t *testing.T) {
	path := genFile(t, 500, parquet.PageBufferSize(1024))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader("caller.parquet", pf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := referenceRowGroup(pf, r.Leaves(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for c := range r.Leaves() {
		if err := equalFlat(normalize(got[0][c]), normalize(ref[c])); err != nil {
			t.Errorf("%s: %v", r.Leaves()[c].PathString(), err)
		}
	}
	if r.File() != pf || r.Name() != "caller.parquet" || r.NumRows(0) != 500 || r.NumRows(1) != -1 {
		t.Fatal("accessors disagree with the file")
	}
}

func TestLeaves(t *testing.T) {
	r := openTest(t, genFile(t, 10), "gen.parquet")
	c, ok := r.LookupLeaf("tags", "list", "element")
	if !ok {
		t.Fatal("tags.list.element not found")
	}
	l := r.Leaves()[c]
	if l.Kind != parquet.ByteArray || l.MaxDefinitionLevel != 1 || l.MaxRepetitionLevel != 1 || l.PathString() != "tags.list.element" {
		t.Fatalf("unexpected leaf %+v", l)
	}
	if _, ok := r.LookupLeaf("nope"); ok {
		t.Fatal("found a column that does not exist")
	}
}

func TestErrorMessage(t *testing.T) {
	e := &Error{File: "a.parquet", RowGroup: 2, Column: "x.y", Page: 3, Offset: 1234, Row: 50, Err: ErrChecksum}
	want := `pqcol: a.parquet: row group 2: column "x.y": page 3 at offset 1234: row 50: corrupt data: page checksum mismatch`
	if e.Error() != want {
		t.Fatalf("got  %s\nwant %s", e.Error(), want)
	}
	e = &Error{File: "b", RowGroup: -1, Page: -1, Offset: -1, Row: -1, Err: ErrUnsupported}
	if got := e.Error(); got != "pqcol: b: unsupported" {
		t.Fatalf("got %s", got)
	}
	p := &PanicError{Value: "boom"}
	if !errors.Is(p, ErrCorrupt) || !strings.Contains(p.Error(), "boom") {
		t.Fatal(p)
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n.Add(int64(n))
	return n, err
}

// countedNames writes 200,000 distinct names of 45 bytes, in one column
// of one row group, with the writer's options, and opens the file
// through a reader that counts the bytes read; it returns the names.
func countedNames(t *testing.T, options ...parquet.WriterOption) (*Reader, *countingReaderAt, []string) {
	t.Helper()
	type row struct {
		Name string `parquet:"name"`
	}
	rows := make([]row, 200_000)
	names := make([]string, len(rows))
	for i := range rows {
		rows[i].Name = fmt.Sprintf("%08d-%036x", i, uint64(i)*0x9e3779b97f4a7c15)
		names[i] = rows[i].Name
	}
	path := filepath.Join(t.TempDir(), "names.parquet")
	writeGenerated(t, path, rows, options...)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	counter := &countingReaderAt{r: f}
	r, err := Open("names.parquet", counter, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, counter, names
}

// TestSeekReadsLess reads the last rows of a large column chunk: with the
// offset index only the pages holding them are read; without it, the
// pages before them are passed by their headers, at most the whole chunk
// (the window reads ahead from each header).
func TestSeekReadsLess(t *testing.T) {
	r, counter, rows := countedNames(t, parquet.Compression(&parquet.Uncompressed))
	chunk := r.File().Metadata().RowGroups[0].Columns[0].MetaData.TotalCompressedSize
	if chunk < 4*readAhead {
		t.Fatalf("the chunk is only %d bytes", chunk)
	}
	var col Column
	for _, scan := range []bool{false, true} {
		r.cfg.ignoreIndex = scan
		counter.n.Store(0)
		if err := r.ReadColumnRange(t.Context(), 0, 0, 199_990, 200_000, &col); err != nil {
			t.Fatal(err)
		}
		if col.NumRows != 10 || string(col.ByteArray(9)) != rows[199_999] {
			t.Fatalf("read %d rows, last %q", col.NumRows, col.ByteArray(int(col.NumRows)-1))
		}
		read := counter.n.Load()
		t.Logf("scan=%v: read %d bytes of a %d-byte chunk", scan, read, chunk)
		if !scan && read > chunk/2 {
			t.Fatalf("with the offset index, read %d bytes of a %d-byte chunk", read, chunk)
		}
		if scan && (read < chunk/2 || read > chunk+chunk/100) {
			t.Fatalf("without the offset index, read %d bytes of a %d-byte chunk", read, chunk)
		}
	}
}
