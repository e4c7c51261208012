package pqcol

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/testutil"
)

// TestPartialPagesHoldOnlyTheirRows reads thirds of a row group whose
// column chunks are one page each, as DuckDB writes them, so that each
// read takes part of a page, in every encoding parquet-go writes (PLAIN,
// dictionary, DELTA_*, BYTE_STREAM_SPLIT, RLE booleans): every read gives
// the rows of the whole chunk's read, and a read into a new Column holds
// the values of its rows only, not the page's (a page of a whole row
// group, read by three fragments, was decoded whole by each).
func TestPartialPagesHoldOnlyTheirRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "onepage.parquet")
	writeGenerated(t, path, genRows(3000, 9), parquet.PageBufferSize(64<<20), parquet.MaxRowsPerRowGroup(3000))
	r := openTest(t, path, "onepage.parquet")
	whole, err := readAll(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]func(*Column) (int, int){
		"id":                func(c *Column) (int, int) { return len(c.Int64), cap(c.Int64) },
		"small":             func(c *Column) (int, int) { return len(c.Int32), cap(c.Int32) },
		"score":             func(c *Column) (int, int) { return len(c.Double), cap(c.Double) },
		"name":              func(c *Column) (int, int) { return len(c.Bytes), cap(c.Bytes) },
		"list":              func(c *Column) (int, int) { return len(c.Int32), cap(c.Int32) },
		"opt":               func(c *Column) (int, int) { return len(c.Int64), cap(c.Int64) },
		"flag":              func(c *Column) (int, int) { return len(c.Boolean), cap(c.Boolean) },
		"split":             func(c *Column) (int, int) { return len(c.Float), cap(c.Float) },
		"delta":             func(c *Column) (int, int) { return len(c.Int64), cap(c.Int64) },
		"dname":             func(c *Column) (int, int) { return len(c.Bytes), cap(c.Bytes) },
		"tags.list.element": func(c *Column) (int, int) { return len(c.Bytes), cap(c.Bytes) },
	}
	checked := 0
	for c, leaf := range r.Leaves() {
		for _, s := range splits(r.NumRows(0), 3) {
			var col Column
			if err := r.ReadColumnRange(t.Context(), 0, c, s[0], s[1], &col); err != nil {
				t.Fatalf("%s, rows [%d, %d): %v", leaf.PathString(), s[0], s[1], err)
			}
			if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[0][c], &leaf, s[0], s[1])); err != nil {
				t.Fatalf("%s, rows [%d, %d): %v", leaf.PathString(), s[0], s[1], err)
			}
			if f, ok := held[leaf.PathString()]; ok {
				n, capacity := f(&col)
				if n == 0 || capacity > n+n/2+64 {
					t.Errorf("%s, rows [%d, %d): %d values held in a buffer of %d", leaf.PathString(), s[0], s[1], n, capacity)
				}
				checked++
			}
		}
	}
	if checked != 3*len(held) {
		t.Fatalf("checked %d reads, want %d: a column is missing", checked, 3*len(held))
	}
}

// TestPartialReadsOfOtherWriters reads every row group of the files
// parquet-go ships (Impala's INT96, Spark's and parquet-mr's fixed-length
// decimals, Arrow, DuckDB, …) in thirds and compares each read with the
// slice of the whole chunk's.
func TestPartialReadsOfOtherWriters(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.ParquetGoTestdata(t), "*.parquet"))
	if len(files) < 40 {
		t.Fatalf("%d files", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			whole, r, err := readWithDeadline(t, path)
			if err != nil {
				t.Fatal(err)
			}
			var col Column
			for rg := range r.NumRowGroups() {
				for c, leaf := range r.Leaves() {
					for _, s := range splits(r.NumRows(rg), 3) {
						if err := r.ReadColumnRange(t.Context(), rg, c, s[0], s[1], &col); err != nil {
							t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), s[0], s[1], err)
						}
						if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[rg][c], &leaf, s[0], s[1])); err != nil {
							t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), s[0], s[1], err)
						}
					}
				}
			}
		})
	}
}

// sharedOf returns the pages that shared holds for r, by offset.
func sharedOf(r *Reader) map[int64]*sharedPage {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	out := map[int64]*sharedPage{}
	for k, e := range shared.pages {
		if k.reader == r.id {
			out[k.offset] = e
		}
	}
	return out
}

// writeOnePage writes rows of genRow in one row group whose column chunks
// are one zstd page each, and returns the file's path.
func writeOnePage(t *testing.T, rows int, options ...parquet.WriterOption) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "onepage.parquet")
	writeGenerated(t, path, genRows(rows, 9), append([]parquet.WriterOption{parquet.PageBufferSize(64 << 20),
		parquet.MaxRowsPerRowGroup(int64(rows)), parquet.Compression(&parquet.Zstd)}, options...)...)
	return path
}

// TestPartialReadsSharePages reads a row group of one-page chunks in
// thirds: the first third's read leaves each page for the others (one
// entry per column), the second takes the same entries, and once the
// third has taken the rest none is left.
func TestPartialReadsSharePages(t *testing.T) {
	r := openTest(t, writeOnePage(t, 3000), "onepage.parquet")
	var col Column
	read := func(from, to int64) {
		t.Helper()
		for c := range r.Leaves() {
			if err := r.ReadColumnRange(t.Context(), 0, c, from, to, &col); err != nil {
				t.Fatal(err)
			}
		}
	}
	read(0, 1000)
	after1 := sharedOf(r)
	if len(after1) != len(r.Leaves()) {
		t.Fatalf("after the first third: %d pages shared, want one per column (%d)", len(after1), len(r.Leaves()))
	}
	read(1000, 2000)
	after2 := sharedOf(r)
	for off, e := range after1 {
		if after2[off] != e || e.users != 0 || e.left <= 0 {
			t.Fatalf("page at %d after the second third: %+v, want the first third's entry, unused, with entries left", off, after2[off])
		}
	}
	read(2000, 3000)
	if left := sharedOf(r); len(left) != 0 {
		t.Fatalf("after the last third: %d pages still shared", len(left))
	}
}

// TestSharedPagesConcurrently reads the halves and thirds of a row group
// of one-page chunks (pages v1 and v2) from several goroutines at once,
// through one Reader, many times, each goroutine starting at another
// column as the Parquet source's workers do: every read gives the rows of
// the whole chunk's read, and no page is left shared at the end.
func TestSharedPagesConcurrently(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			sharedConcurrently(t, openTest(t, writeOnePage(t, 3000, parquet.DataPageVersion(version)), "onepage.parquet"))
		})
	}
}

func sharedConcurrently(t *testing.T, r *Reader) {
	whole, err := readAll(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	leaves := r.Leaves()
	for round := range 20 {
		parts := splits(3000, 2+round%2)
		errs := make(chan error, len(parts))
		for i, s := range parts {
			go func() {
				var col Column
				for k := range leaves {
					c := (k + i*len(leaves)/len(parts)) % len(leaves)
					leaf := leaves[c]
					if err := r.ReadColumnRange(t.Context(), 0, c, s[0], s[1], &col); err != nil {
						errs <- err
						return
					}
					if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[0][c], &leaf, s[0], s[1])); err != nil {
						errs <- fmt.Errorf("%s, rows [%d, %d): %v", leaf.PathString(), s[0], s[1], err)
						return
					}
				}
				errs <- nil
			}()
		}
		for range parts {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
	if left := sharedOf(r); len(left) != 0 {
		t.Fatalf("%d pages still shared after every range was read", len(left))
	}
}

// TestSharedPageCorrupt damages the one zstd page of a column chunk: reads
// of its halves, at once and one after the other, each fail naming the
// page, as a read of the whole chunk does, and leave nothing shared.
func TestSharedPageCorrupt(t *testing.T) {
	path := writeOnePage(t, 3000)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := openTest(t, path, "onepage.parquet")
	c, ok := r.LookupLeaf("id")
	if !ok {
		t.Fatal("no column id")
	}
	cm := r.File().Metadata().RowGroups[0].Columns[c].MetaData
	mid := cm.DataPageOffset + cm.TotalCompressedSize/2
	for i := range int64(16) {
		data[mid+i] ^= 0x5a
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r = openTest(t, bad, "bad.parquet", VerifyChecksums(false))
	check := func(err error) {
		t.Helper()
		var e *Error
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Column != "id" || e.Page != 0 {
			t.Fatalf("got %v, want a corruption error naming column id, page 0", err)
		}
	}
	var col Column
	check(r.ReadColumn(t.Context(), 0, c, &col))
	for range 10 {
		errs := make(chan error, 2)
		for _, s := range splits(3000, 2) {
			go func() {
				var col Column
				errs <- r.ReadColumnRange(t.Context(), 0, c, s[0], s[1], &col)
			}()
		}
		check(<-errs)
		check(<-errs)
	}
	check(r.ReadColumnRange(t.Context(), 0, c, 0, 1500, &col))
	check(r.ReadColumnRange(t.Context(), 0, c, 1500, 3000, &col))
	if left := sharedOf(r); len(left) != 0 {
		t.Fatalf("%d pages still shared after failed reads", len(left))
	}
}

// TestCloseDropsSharedPages reads the first half of a row group of
// one-page chunks, which leaves each page for the second half's read, and
// closes the Reader: nothing is left.
func TestCloseDropsSharedPages(t *testing.T) {
	r := openTest(t, writeOnePage(t, 2000), "onepage.parquet")
	var col Column
	for c := range r.Leaves() {
		if err := r.ReadColumnRange(t.Context(), 0, c, 0, 1000, &col); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(sharedOf(r)); n != len(r.Leaves()) {
		t.Fatalf("%d pages shared, want %d", n, len(r.Leaves()))
	}
	r.Close()
	if n := len(sharedOf(r)); n != 0 {
		t.Fatalf("%d pages shared after Close", n)
	}
}

// TestRangesLeaveNoPages reads every chunk of files of many pages without
// a page index (pages v1 of repeated columns, whose rows only their levels
// tell, and v2) in four ranges, first to last and last to first: each
// read gives the rows of the whole chunk's, and once all ranges are read
// no page is left shared: a page is left only for reads that need it.
func TestRangesLeaveNoPages(t *testing.T) {
	for name, path := range noIndexFiles(t) {
		t.Run(name, func(t *testing.T) {
			whole, err := readAll(t.Context(), openTest(t, path, "whole"))
			if err != nil {
				t.Fatal(err)
			}
			for _, backwards := range []bool{false, true} {
				r := openTest(t, path, filepath.Base(path))
				var col Column
				for rg := range r.NumRowGroups() {
					for c, leaf := range r.Leaves() {
						parts := splits(r.NumRows(rg), 4)
						if backwards {
							slices.Reverse(parts)
						}
						for _, s := range parts {
							if err := r.ReadColumnRange(t.Context(), rg, c, s[0], s[1], &col); err != nil {
								t.Fatal(err)
							}
							if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[rg][c], &leaf, s[0], s[1])); err != nil {
								t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), s[0], s[1], err)
							}
						}
					}
				}
				if left := sharedOf(r); len(left) != 0 {
					t.Fatalf("backwards %v: %d pages left shared after every range was read", backwards, len(left))
				}
			}
		})
	}
}

// TestPublishAfterAnotherRead covers a page of n entries that two reads
// decompress at once: one left it shared (as the chunk's last page), the
// other decompressed its own and learned from the levels that it is
// shared. Publishing the second takes its entries from the first's, which
// leaves once the first has taken the rest.
func TestPublishAfterAnotherRead(t *testing.T) {
	s := pageShare{pages: map[pageKey]*sharedPage{}}
	key := pageKey{reader: 1, offset: 4}
	first, owner := s.acquire(key, 100, 10, true)
	if !owner {
		t.Fatal("the first read does not own the page")
	}
	s.fill(first, nil, make([]byte, 100), nil)
	late := &sharedPage{key: key, size: 100, done: closed, left: 10, users: 1, gone: true}
	s.publish(late, 6)
	if s.pages[key] != first || first.left != 4 || !late.gone {
		t.Fatalf("after the second read: %d pages, the first's entry has %d entries left; want the first's alone, 4 left", len(s.pages), first.left)
	}
	s.release(late, 6)
	s.release(first, 4)
	if len(s.pages) != 0 || s.held != 0 {
		t.Fatalf("%d pages (%d bytes) left once both reads are done", len(s.pages), s.held)
	}
}

// TestBufferClass checks the size classes of shared page buffers: a class
// holds n bytes and at most a quarter more (from 8 bytes on), larger n
// never get a smaller class, and a buffer of a class's size goes back to
// that class.
func TestBufferClass(t *testing.T) {
	prev := -1
	for _, n := range []int{1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 100, 1000, 4095, 4096, 4097, 983072, 1 << 20, 1<<20 + 1, 8<<20 - 1, 256<<20 + 1} {
		class, size := bufferClass(n)
		if size < n || n >= 8 && size > n+n/4 || class < prev || class >= len(sharedBuffers) {
			t.Fatalf("%d bytes: class %d of %d bytes (previous class %d)", n, class, size, prev)
		}
		if c, s := bufferClass(size); c != class || s != size {
			t.Fatalf("a buffer of %d bytes goes to class %d (%d bytes), want %d", size, c, s, class)
		}
		prev = class
	}
	if b := sharedBuffer(1000, 1000); cap(b) != 1000 {
		t.Fatalf("a buffer limited to its size has %d bytes", cap(b))
	}
}

// TestSharedPagesReadOnce reads the halves of a row group of one large
// page v1, one after the other: the first half's read reads the page from
// the file and leaves it decompressed in shared; the second takes it
// from there and reads no more than the page's header and the offset
// index. (A page v2 whose
// CRC is verified is read whole by both: the CRC covers its levels, which
// are not in the decompressed part.)
func TestSharedPagesReadOnce(t *testing.T) {
	r, counter, rows := countedNames(t, parquet.PageBufferSize(64<<20), parquet.Compression(&parquet.Zstd), parquet.DataPageVersion(1))
	cm := r.File().Metadata().RowGroups[0].Columns[0].MetaData
	if cm.TotalCompressedSize < 2*readAhead {
		t.Fatalf("the chunk is only %d bytes", cm.TotalCompressedSize)
	}
	var col Column
	for _, half := range [][2]int64{{0, 100_000}, {100_000, 200_000}} {
		counter.n.Store(0)
		if err := r.ReadColumnRange(t.Context(), 0, 0, half[0], half[1], &col); err != nil {
			t.Fatal(err)
		}
		if col.NumRows != 100_000 || string(col.ByteArray(7)) != rows[half[0]+7] {
			t.Fatalf("rows %v: read %d rows, the 8th %q", half, col.NumRows, col.ByteArray(7))
		}
		read := counter.n.Load()
		t.Logf("rows %v: read %d bytes of a %d-byte chunk", half, read, cm.TotalCompressedSize)
		if half[0] == 0 && read < cm.TotalCompressedSize {
			t.Fatalf("the first half read %d bytes of a %d-byte chunk", read, cm.TotalCompressedSize)
		}
		if half[0] > 0 && read > firstHeaderRead+512 {
			t.Fatalf("the second half read %d bytes, more than a page header (%d) and an offset index", read, firstHeaderRead)
		}
	}
}

// TestPartialReadsShareLevels reads a row group of one-page v1 chunks in
// thirds: the first third's read leaves the levels it decoded with each
// page of a column that has them, the other thirds take those (the same
// levels, not decoded again), and every third gives the rows of the whole
// chunk's read.
func TestPartialReadsShareLevels(t *testing.T) {
	r := openTest(t, writeOnePage(t, 3000, parquet.DataPageVersion(1)), "onepage.parquet")
	whole, err := readAll(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	leaves := r.Leaves()
	hasLevels := func(c int) bool { return leaves[c].MaxDefinitionLevel > 0 || leaves[c].MaxRepetitionLevel > 0 }
	var first map[int64]*pageLevels
	for _, s := range splits(3000, 3) {
		var col Column
		for c, leaf := range leaves {
			if err := r.ReadColumnRange(t.Context(), 0, c, s[0], s[1], &col); err != nil {
				t.Fatal(err)
			}
			if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[0][c], &leaf, s[0], s[1])); err != nil {
				t.Fatalf("%s, rows %v: %v", leaf.PathString(), s, err)
			}
		}
		if s[0] > 0 {
			if s[1] < 3000 { // the second third: the pages are still shared
				after := sharedOf(r)
				for off, lv := range first {
					if after[off] == nil || after[off].levels != lv {
						t.Fatalf("page at %d: its levels changed in the second third's read", off)
					}
				}
			}
			continue
		}
		first = map[int64]*pageLevels{}
		with := 0
		for off, e := range sharedOf(r) {
			first[off] = e.levels
			if e.levels != nil {
				with++
			}
		}
		want := 0
		for c := range leaves {
			if hasLevels(c) {
				want++
			}
		}
		if want == 0 || with != want {
			t.Fatalf("after the first third: %d pages with levels, want one per column with levels (%d)", with, want)
		}
	}
	if left := sharedOf(r); len(left) != 0 {
		t.Fatalf("after the last third: %d pages still shared", len(left))
	}
}

// TestPassingThroughLastPage reads a list column of pages v1 whose last
// page starts at row cut: first rows [cut, end), which take every entry
// of that page, then rows [0, cut), whose read passes through the page
// only to find where its last row ends. No page may be left in shared: a
// read that takes none of the last page's entries used to leave it there
// for reads of the rows after its range, which had come and gone.
func TestPassingThroughLastPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.parquet")
	writeGenerated(t, path, genRows(300, 1), parquet.PageBufferSize(1024), parquet.DataPageVersion(1), parquet.Compression(&parquet.Snappy))
	r := openTest(t, path, "pages.parquet")
	c, ok := r.LookupLeaf("list")
	if !ok {
		t.Fatal("no column list")
	}
	index, err := r.OffsetIndex(t.Context(), 0, c)
	if err != nil {
		t.Fatal(err)
	}
	pages := index.PageLocations
	cut := pages[len(pages)-1].FirstRowIndex
	if len(pages) < 2 || cut <= 0 {
		t.Fatalf("%d pages, the last from row %d: want several", len(pages), cut)
	}
	whole, err := readAll(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	var col Column
	for _, s := range [][2]int64{{cut, 300}, {0, cut}} {
		if err := r.ReadColumnRange(t.Context(), 0, c, s[0], s[1], &col); err != nil {
			t.Fatal(err)
		}
		if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[0][c], &r.Leaves()[c], s[0], s[1])); err != nil {
			t.Fatalf("rows %v: %v", s, err)
		}
	}
	for off, e := range sharedOf(r) {
		t.Errorf("page at %d left in shared, %d of its entries untaken (the last page is at %d)", off, e.left, pages[len(pages)-1].Offset)
	}
}

// TestSharedPageOfOverlappingChunks damages a footer so that the column
// chunk of id (INT64, required) claims the bytes of the chunk of opt
// (INT64, optional), as such, or with another codec. A read of half of
// id must fail as it does through a Reader that read nothing else, also
// after a read of half of opt left the page in shared: with its levels,
// which opt's column gives and id's has none of, or decompressed by
// opt's codec.
func TestSharedPageOfOverlappingChunks(t *testing.T) {
	path := writeOnePage(t, 1000, parquet.DataPageVersion(1))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := openTest(t, path, "onepage.parquet")
	id, ok1 := r.LookupLeaf("id")
	opt, ok2 := r.LookupLeaf("opt")
	if !ok1 || !ok2 {
		t.Fatal("no column id or opt")
	}
	for name, codec := range map[string]format.CompressionCodec{"same codec": format.Zstd, "other codec": format.Snappy} {
		t.Run(name, func(t *testing.T) {
			bad := rewriteFooter(t, data, nil, func(md *format.FileMetaData, _ int64) {
				cs := md.RowGroups[0].Columns
				path := cs[id].MetaData.PathInSchema
				cs[id].MetaData = cs[opt].MetaData
				cs[id].MetaData.PathInSchema, cs[id].MetaData.Codec = path, codec
				cs[id].OffsetIndexOffset, cs[id].OffsetIndexLength = cs[opt].OffsetIndexOffset, cs[opt].OffsetIndexLength
				cs[id].ColumnIndexOffset, cs[id].ColumnIndexLength = 0, 0
			})
			open := func() *Reader {
				r, err := Open("bad.parquet", bytes.NewReader(bad), int64(len(bad)))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(r.Close)
				return r
			}
			var col Column
			alone := open().ReadColumnRange(t.Context(), 0, id, 500, 1000, &col)
			if alone == nil {
				t.Fatal("id's half read opt's page without an error")
			}
			r := open()
			if err := r.ReadColumnRange(t.Context(), 0, opt, 0, 500, &col); err != nil {
				t.Fatal(err)
			}
			if len(sharedOf(r)) != 1 {
				t.Fatalf("%d pages shared after opt's half, want 1", len(sharedOf(r)))
			}
			after := r.ReadColumnRange(t.Context(), 0, id, 500, 1000, &col)
			if after == nil || after.Error() != alone.Error() {
				t.Fatalf("after opt's half: %v\nalone: %v", after, alone)
			}
		})
	}
}
