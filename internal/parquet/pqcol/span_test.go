package pqcol

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// sliceRows returns the part of a whole-chunk flat column that belongs to
// rows [from, to): the oracle for row range reads.
func sliceRows(w flat, leaf *Leaf, from, to int64) flat {
	n := len(w.values)
	switch {
	case leaf.MaxRepetitionLevel > 0:
		n = len(w.rep)
	case leaf.MaxDefinitionLevel > 0:
		n = len(w.def)
	}
	out := flat{rows: to - from, def: []byte{}, rep: []byte{}, values: []string{}}
	row, v := int64(-1), 0
	for i := range n {
		if leaf.MaxRepetitionLevel == 0 || w.rep[i] == 0 {
			row++
		}
		has := leaf.MaxDefinitionLevel == 0 || int(w.def[i]) == leaf.MaxDefinitionLevel
		if row >= from && row < to {
			if leaf.MaxDefinitionLevel > 0 {
				out.def = append(out.def, w.def[i])
			}
			if leaf.MaxRepetitionLevel > 0 {
				out.rep = append(out.rep, w.rep[i])
			}
			if has {
				out.values = append(out.values, w.values[v])
			}
		}
		if has {
			v++
		}
	}
	return out
}

func normalize(f flat) flat {
	if f.def == nil {
		f.def = []byte{}
	}
	if f.rep == nil {
		f.rep = []byte{}
	}
	if f.values == nil {
		f.values = []string{}
	}
	return f
}

func spanRows(n int, seed uint64) []spanRow {
	rng := rand.New(rand.NewPCG(seed, 1))
	names := []string{"alpha", "beta", "gamma", "delta", "", "epsilon-long-name", "zeta"}
	rows := make([]spanRow, n)
	for i := range rows {
		r := spanRow{id: int64(i)*7 - 100}
		for range rng.IntN(12) {
			r.vals = append(r.vals, rng.Int32()-1<<30)
		}
		if i%5 != 0 { // every fifth row has no names
			for range 1 + rng.IntN(9) {
				r.names = append(r.names, names[rng.IntN(len(names))])
			}
		}
		rows[i] = r
	}
	return rows
}

// expectSpan builds the flat columns of rows directly from the data.
func expectSpan(rows []spanRow) []flat {
	cols := []flat{{rows: int64(len(rows))}, {rows: int64(len(rows))}, {rows: int64(len(rows))}}
	for _, r := range rows {
		cols[0].values = append(cols[0].values, strconv.FormatInt(r.id, 10))
		for j, v := range r.vals {
			cols[1].rep, cols[1].def = append(cols[1].rep, min(byte(j), 1)), append(cols[1].def, 1)
			cols[1].values = append(cols[1].values, strconv.Itoa(int(v)))
		}
		if len(r.vals) == 0 {
			cols[1].rep, cols[1].def = append(cols[1].rep, 0), append(cols[1].def, 0)
		}
		for j, s := range r.names {
			cols[2].rep, cols[2].def = append(cols[2].rep, min(byte(j), 1)), append(cols[2].def, 1)
			cols[2].values = append(cols[2].values, s)
		}
		if len(r.names) == 0 {
			cols[2].rep, cols[2].def = append(cols[2].rep, 0), append(cols[2].def, 0)
		}
	}
	return cols
}

// pagesStartingMidRow counts the data pages of a crafted repeated column
// whose first level entry continues a row.
func pagesStartingMidRow(lengths []int, pageEntries int) int {
	rep, _ := flatten(lengths)
	n := 0
	for lo := 0; lo < len(rep); lo += pageEntries {
		if rep[lo] != 0 {
			n++
		}
	}
	return n
}

// TestRowsSpanningPages reads files whose data pages v1 split rows of
// repeated columns, whole and by row ranges, and compares with the data
// written and with parquet-go's row reader.
func TestRowsSpanningPages(t *testing.T) {
	rows := spanRows(400, 7)
	lengths := make([]int, 150)
	for i := range lengths {
		lengths[i] = len(rows[i].vals)
	}
	if n := pagesStartingMidRow(lengths, 7); n < 20 {
		t.Fatalf("only %d pages start inside a row; the test needs many", n)
	}
	for _, codec := range []format.CompressionCodec{format.Uncompressed, format.Snappy, format.Zstd} {
		t.Run(codec.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "span.parquet")
			writeCrafted(t, path, rows, craftOptions{rowsPerGroup: 150, pageEntries: 7, codec: codec, checksum: true})
			r := openTest(t, path, "span.parquet")
			r.cfg.learnGap = 1 // learn every page start of these small pages
			if r.NumRowGroups() != 3 {
				t.Fatalf("row groups: got %d, want 3", r.NumRowGroups())
			}
			got, err := readAll(t.Context(), r)
			if err != nil {
				t.Fatal(err)
			}
			for rg := range r.NumRowGroups() {
				part := rows[rg*150 : min(rg*150+150, len(rows))]
				want := expectSpan(part)
				ref, err := referenceRowGroup(r.File(), r.Leaves(), rg)
				if err != nil {
					t.Fatalf("parquet-go reference: %v", err)
				}
				for c := range r.Leaves() {
					if err := equalFlat(normalize(got[rg][c]), normalize(want[c])); err != nil {
						t.Errorf("row group %d, %s vs data written: %v", rg, r.Leaves()[c].PathString(), err)
					}
					if err := equalFlat(normalize(got[rg][c]), normalize(ref[c])); err != nil {
						t.Errorf("row group %d, %s vs parquet-go: %v", rg, r.Leaves()[c].PathString(), err)
					}
				}
			}
			points := []int64{0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 100, 149, 150}
			checkRanges(t, r, got, points) // from the page starts the reads learned
			r.cfg.ignoreIndex = true       // the same ranges, scanning from the first page
			checkRanges(t, r, got, points)
		})
	}
}

// checkRanges reads many row ranges of every column chunk into one reused
// Column and compares each with the slice of the whole chunk.
func checkRanges(t *testing.T, r *Reader, whole [][]flat, points []int64) {
	t.Helper()
	var col Column
	for rg := range r.NumRowGroups() {
		n := r.NumRows(rg)
		for c := range r.Leaves() {
			leaf := &r.Leaves()[c]
			for _, from := range points {
				for _, to := range points {
					if from > to || to > n {
						continue
					}
					if err := r.ReadColumnRange(t.Context(), rg, c, from, to, &col); err != nil {
						t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), from, to, err)
					}
					if col.FirstRow != from || col.NumRows != to-from {
						t.Fatalf("rows [%d, %d): buffer says first row %d, %d rows", from, to, col.FirstRow, col.NumRows)
					}
					want := sliceRows(whole[rg][c], leaf, from, to)
					if err := equalFlat(normalize(flatOf(&col)), want); err != nil {
						t.Fatalf("row group %d, %s, rows [%d, %d): %v", rg, leaf.PathString(), from, to, err)
					}
				}
			}
		}
	}
}

// TestChecksumLocatesPage damages one page of a crafted file after its CRC
// was computed: reading the chunk fails naming that page, while a row range
// that ends before it still reads.
func TestChecksumLocatesPage(t *testing.T) {
	rows := spanRows(100, 3)
	path := filepath.Join(t.TempDir(), "damaged.parquet")
	writeCrafted(t, path, rows, craftOptions{rowsPerGroup: 100, pageEntries: 20, codec: format.Snappy, checksum: true, corruptPage: 3})
	r := openTest(t, path, "damaged.parquet")
	vals, _ := r.LookupLeaf("vals")
	var col Column
	err := r.ReadColumn(t.Context(), 0, vals, &col)
	var e *Error
	if !errors.Is(err, ErrChecksum) || !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) {
		t.Fatalf("got %v, want a checksum *Error", err)
	}
	if e.File != "damaged.parquet" || e.RowGroup != 0 || e.Column != "vals" || e.Page != 2 || e.Offset <= 0 || e.Row <= 0 {
		t.Fatalf("error location %+v", e)
	}
	// The damaged page is the third: entries [40, 60). Rows entirely before
	// entry 40 read without touching it.
	rep, _ := flatten(lengthsOf(rows))
	safe := int64(countEqual(rep[:40], 0)) - 1
	if err := r.ReadColumnRange(t.Context(), 0, vals, 0, safe, &col); err != nil {
		t.Fatalf("rows [0, %d) before the damaged page: %v", safe, err)
	}
	if col.NumRows != safe {
		t.Fatalf("read %d rows, want %d", col.NumRows, safe)
	}
	// A range after it, read once the reads have learned where the pages
	// before it start, still meets the damage.
	err = r.ReadColumnRange(t.Context(), 0, vals, safe, 100, &col)
	if !errors.Is(err, ErrChecksum) || !errors.As(err, &e) || e.Page != 2 {
		t.Fatalf("rows [%d, 100) after the learned pages: got %v, want a checksum error at page 2", safe, err)
	}
	// Without verification the damage goes unnoticed or surfaces as
	// corruption, but never as a checksum error.
	r2 := openTest(t, path, "damaged.parquet", VerifyChecksums(false))
	if err := r2.ReadColumn(t.Context(), 0, vals, &col); errors.Is(err, ErrChecksum) {
		t.Fatalf("checksum verified although disabled: %v", err)
	}
}

func lengthsOf(rows []spanRow) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = len(r.vals)
	}
	return out
}

func TestSliceRowsOracle(t *testing.T) {
	leaf := &Leaf{MaxDefinitionLevel: 1, MaxRepetitionLevel: 1}
	w := flat{rep: []byte{0, 1, 0, 0, 1, 1}, def: []byte{1, 1, 0, 1, 1, 1}, values: []string{"a", "b", "c", "d", "e"}, rows: 3}
	got := sliceRows(w, leaf, 1, 3)
	want := flat{rows: 2, rep: []byte{0, 0, 1, 1}, def: []byte{0, 1, 1, 1}, values: []string{"c", "d", "e"}}
	if err := equalFlat(got, want); err != nil || !slices.Equal(got.values, want.values) {
		t.Fatal(fmt.Sprint(err, got))
	}
}
