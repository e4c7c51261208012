package pqcol

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
)

// withoutPageIndexes returns a copy of the Parquet file data whose footer
// records no offset or column index for any column chunk.
func withoutPageIndexes(t *testing.T, data []byte) []byte {
	t.Helper()
	return rewriteFooter(t, data, nil, func(md *format.FileMetaData, _ int64) {
		for i := range md.RowGroups {
			for j := range md.RowGroups[i].Columns {
				c := &md.RowGroups[i].Columns[j]
				c.OffsetIndexOffset, c.OffsetIndexLength, c.ColumnIndexOffset, c.ColumnIndexLength = 0, 0, 0, 0
			}
		}
	})
}

// noIndexFiles writes files without page indexes whose chunks have many
// pages: crafted ones whose data pages v1 split rows of repeated columns,
// and parquet-go's (dictionaries, lists, optional columns; pages v1 and
// v2) with their indexes dropped.
func noIndexFiles(t *testing.T) map[string]string {
	dir := t.TempDir()
	files := map[string]string{}
	span := filepath.Join(dir, "span.parquet")
	writeCrafted(t, span, spanRows(400, 7), craftOptions{rowsPerGroup: 150, pageEntries: 7, codec: format.Snappy, checksum: true})
	files["crafted v1, rows split across pages"] = span
	for _, v := range []int{1, 2} {
		gen := filepath.Join(dir, fmt.Sprintf("gen-v%d.parquet", v))
		writeGenerated(t, gen, genRows(3000, 5), parquet.DataPageVersion(v), parquet.PageBufferSize(512),
			parquet.MaxRowsPerRowGroup(1200), parquet.Compression(&parquet.Zstd))
		data, err := os.ReadFile(gen)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(gen, withoutPageIndexes(t, data), 0o644); err != nil {
			t.Fatal(err)
		}
		files[fmt.Sprintf("parquet-go pages v%d", v)] = gen
	}
	return files
}

// splits returns the ranges that cut n rows into k parts.
func splits(n int64, k int) [][2]int64 {
	var out [][2]int64
	for i := range k {
		out = append(out, [2]int64{n * int64(i) / int64(k), n * int64(i+1) / int64(k)})
	}
	return out
}

// TestLearnedPageStarts reads row ranges of chunks without an offset
// index through one Reader, in orders that start reads from the pages
// earlier reads found (consecutive ranges forward and back, then random
// ones), and compares each with the slice of the whole chunk. Every page
// start learned must hold the state a scan has there.
func TestLearnedPageStarts(t *testing.T) {
	for name, path := range noIndexFiles(t) {
		t.Run(name, func(t *testing.T) {
			whole, err := readAll(t.Context(), openTest(t, path, "whole"))
			if err != nil {
				t.Fatal(err)
			}
			r := openTest(t, path, filepath.Base(path))
			r.cfg.learnGap = 1 // keep every page start: these files' pages are small
			rng := rand.New(rand.NewPCG(1, 2))
			var col Column
			check := func(rg, c int, from, to int64) {
				t.Helper()
				leaf := &r.Leaves()[c]
				if err := r.ReadColumnRange(t.Context(), rg, c, from, to, &col); err != nil {
					t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), from, to, err)
				}
				if err := equalFlat(normalize(flatOf(&col)), sliceRows(whole[rg][c], leaf, from, to)); err != nil {
					t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), from, to, err)
				}
			}
			most := 0
			for rg := range r.NumRowGroups() {
				n := r.NumRows(rg)
				for c := range r.Leaves() {
					parts := splits(n, 9)
					for _, s := range parts {
						check(rg, c, s[0], s[1])
					}
					for i := len(parts) - 1; i >= 0; i-- {
						check(rg, c, parts[i][0], parts[i][1])
					}
					for range 40 {
						from := rng.Int64N(n + 1)
						check(rg, c, from, from+rng.Int64N(n-from+1))
					}
					most = max(most, checkLearned(t, r, rg, c, whole[rg][c]))
				}
			}
			if most < 8 {
				t.Fatalf("the reads learned at most %d page starts of a chunk", most)
			}
		})
	}
}

// checkLearned checks what the Reader learned of a chunk against the
// chunk's levels: every page start is at a row's first level entry, with
// the count of entries before it, in order; and the first page is one. It
// returns the number of page starts.
func checkLearned(t *testing.T, r *Reader, rg, c int, whole flat) int {
	t.Helper()
	l := r.learned[rg*len(r.leaves)+c].Load()
	if l == nil || len(l.starts) == 0 || l.starts[0].row != 0 {
		t.Fatalf("row group %d column %d: the reads learned no page starts (%+v)", rg, c, l)
	}
	leaf := &r.Leaves()[c]
	entries := len(whole.values) // an entry per value without levels
	switch {
	case leaf.MaxRepetitionLevel > 0:
		entries = len(whole.rep)
	case leaf.MaxDefinitionLevel > 0:
		entries = len(whole.def)
	}
	firstEntry := make([]int64, 0, whole.rows) // the first level entry of each row
	for i := range entries {
		if leaf.MaxRepetitionLevel == 0 || whole.rep[i] == 0 {
			firstEntry = append(firstEntry, int64(i))
		}
	}
	prev := pageStart{offset: -1, row: -1, page: -1}
	for _, s := range l.starts {
		if s.offset <= prev.offset || s.row <= prev.row || s.page <= prev.page || s.row >= int64(len(firstEntry)) ||
			s.levels != firstEntry[s.row] {
			t.Fatalf("row group %d, %s: page start %+v after %+v; row %d starts at entry %d",
				rg, leaf.PathString(), s, prev, s.row, firstEntry[min(s.row, int64(len(firstEntry)-1))])
		}
		prev = s
	}
	return len(l.starts)
}

// TestLearnedPageStartsReadOnce reads a large chunk without an offset
// index in 16 consecutive row ranges: the reads together read the chunk
// once and a read-ahead window per range, where each scanning from the
// first page read it 8.5 times over.
func TestLearnedPageStartsReadOnce(t *testing.T) {
	rows := genRows(100_000, 9)
	path := filepath.Join(t.TempDir(), "big.parquet")
	writeGenerated(t, path, rows, parquet.DataPageVersion(1), parquet.PageBufferSize(4096))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = withoutPageIndexes(t, data)
	for _, learn := range []bool{true, false} {
		counter := &countingReaderAt{r: bytes.NewReader(data)}
		r, err := Open("big.parquet", counter, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		r.cfg.ignoreIndex = !learn // scanning from the first page every time
		list := slices.IndexFunc(r.Leaves(), func(l Leaf) bool { return l.Path[0] == "list" })
		chunk := r.File().Metadata().RowGroups[0].Columns[list].MetaData.TotalCompressedSize
		counter.n.Store(0)
		var col Column
		for _, s := range splits(r.NumRows(0), 16) {
			if err := r.ReadColumnRange(t.Context(), 0, list, s[0], s[1], &col); err != nil {
				t.Fatal(err)
			}
			if col.NumRows != s[1]-s[0] {
				t.Fatalf("rows [%d, %d): read %d", s[0], s[1], col.NumRows)
			}
		}
		read := counter.n.Load()
		t.Logf("learning=%v: read %d bytes of a %d-byte chunk", learn, read, chunk)
		if learn && read > chunk+16*readAhead || !learn && read < 6*chunk {
			t.Fatalf("learning=%v: read %d bytes of a %d-byte chunk", learn, read, chunk)
		}
	}
}

// TestLearnedPageStartsConcurrent reads random ranges of every chunk from
// several goroutines through one Reader, which learns as they go.
func TestLearnedPageStartsConcurrent(t *testing.T) {
	for name, path := range noIndexFiles(t) {
		t.Run(name, func(t *testing.T) {
			whole, err := readAll(t.Context(), openTest(t, path, "whole"))
			if err != nil {
				t.Fatal(err)
			}
			r := openTest(t, path, filepath.Base(path))
			r.cfg.learnGap = 1
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for g := range 4 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(g), 3))
					var col Column
					for range 60 {
						rg := rng.IntN(r.NumRowGroups())
						c := rng.IntN(len(r.Leaves()))
						n := r.NumRows(rg)
						from := rng.Int64N(n + 1)
						to := from + rng.Int64N(n-from+1)
						leaf := &r.Leaves()[c]
						err := r.ReadColumnRange(t.Context(), rg, c, from, to, &col)
						if err == nil {
							err = equalFlat(normalize(flatOf(&col)), sliceRows(whole[rg][c], leaf, from, to))
						}
						if err != nil {
							errs <- fmt.Errorf("row group %d, %s, rows [%d, %d): %w", rg, leaf.PathString(), from, to, err)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestLearnedPageStartsDamaged damages files without page indexes one
// byte at a time (pages and their headers, not the footer) and reads the
// same row ranges through a Reader that learns and one that scans from
// the first page every time: each read fails in both or in neither, and
// gives the same rows when it does not fail.
func TestLearnedPageStartsDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	damages := 5 // damaged copies of each file; 20 in the long tests
	if longtest.On() {
		damages = 20
	}
	failed, read := 0, 0
	for name, path := range noIndexFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pages := len(data) - 8 - footerLen(data)
		for m := range damages {
			damaged := bytes.Clone(data)
			damaged[4+rng.IntN(pages-4)] ^= byte(1 + rng.IntN(255))
			learn, err1 := Open("learn", bytes.NewReader(damaged), int64(len(damaged)))
			scan, err2 := Open("scan", bytes.NewReader(damaged), int64(len(damaged)))
			if err1 != nil || err2 != nil {
				continue // the footer's row counts no longer hold
			}
			learn.cfg.learnGap, scan.cfg.ignoreIndex = 1, true
			var a, b Column
			for rg := range learn.NumRowGroups() {
				n := learn.NumRows(rg)
				for c := range learn.Leaves() {
					ranges := splits(n, 5)
					for range 6 {
						from := rng.Int64N(n + 1)
						ranges = append(ranges, [2]int64{from, from + rng.Int64N(n-from+1)})
					}
					for _, s := range ranges {
						errA := learn.ReadColumnRange(t.Context(), rg, c, s[0], s[1], &a)
						errB := scan.ReadColumnRange(t.Context(), rg, c, s[0], s[1], &b)
						if (errA == nil) != (errB == nil) {
							t.Fatalf("%s, damage %d, row group %d column %d, rows [%d, %d): learning %v, scanning %v",
								name, m, rg, c, s[0], s[1], errA, errB)
						}
						if errA != nil {
							failed++
							continue
						}
						read++
						if err := equalFlat(flatOf(&a), flatOf(&b)); err != nil {
							t.Fatalf("%s, damage %d, row group %d column %d, rows [%d, %d): %v", name, m, rg, c, s[0], s[1], err)
						}
					}
				}
			}
		}
	}
	t.Logf("%d reads failed in both, %d read alike", failed, read)
	if failed < 20 || read < 20 {
		t.Fatalf("%d reads failed and %d read: the damage should give both", failed, read)
	}
}
