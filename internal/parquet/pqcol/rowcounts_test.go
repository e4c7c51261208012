package pqcol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// countedFile is ten pages of 100 rows of one INT64 (flat) or a list of
// one INT32 (repeated), with the row group's and the chunk's counts as
// given.
func countedFile(t *testing.T, repeated bool, numRows, numValues int64) *Reader {
	t.Helper()
	leaf := requiredLeaf("v", format.Int64)
	if repeated {
		leaf = format.SchemaElement{Name: "v", Type: some(format.Int32), RepetitionType: some(format.Repeated)}
	}
	var pages []rawPage
	for p := range 10 {
		var raw []byte
		if repeated {
			raw = prefixed(nil, rleRun(nil, 100, 0))
			raw = prefixed(raw, rleRun(nil, 100, 1))
		}
		for i := range 100 {
			if repeated {
				raw = binary.LittleEndian.AppendUint32(raw, uint32(p*100+i))
			} else {
				raw = binary.LittleEndian.AppendUint64(raw, uint64(p*100+i))
			}
		}
		pages = append(pages, rawPage{v1(100, format.Plain), raw, len(raw)})
	}
	data := oneColumn{schema: []format.SchemaElement{leaf}, numRows: numRows, numValues: numValues, pages: pages}.bytes(t)
	r, err := Open("counted.parquet", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return r
}

// wantCorrupt checks that err is ErrCorrupt naming the file, row group 0
// and column v, and saying what.
func wantCorrupt(t *testing.T, err error, what string) {
	t.Helper()
	var e *Error
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.File != "counted.parquet" || e.RowGroup != 0 || e.Column != "v" {
		t.Fatalf("got %v, want ErrCorrupt naming counted.parquet, row group 0, column v", err)
	}
	if !strings.Contains(err.Error(), what) {
		t.Fatalf("got %v, want it to say %q", err, what)
	}
}

// TestFooterRowCounts: a footer whose row counts the column chunks cannot
// hold fails to open, before anything is planned from it.
func TestFooterRowCounts(t *testing.T) {
	for _, c := range []struct {
		name              string
		repeated          bool
		numRows, numValue int64
		want              string
	}{
		{"fewer rows than values", false, 600, 1000, "declares 600 rows but its column chunk holds 1000 values, one per row"},
		{"no rows", false, 0, 1000, "declares 0 rows"},
		{"more rows than values", true, 1001, 1000, "declares 1001 rows but its column chunk holds 1000 values, at least one per row"},
		{"2^62 rows", false, 1 << 62, 1 << 62, "column chunk declares 4611686018427387904 values in"},
	} {
		t.Run(c.name, func(t *testing.T) {
			leaf := requiredLeaf("v", format.Int64)
			if c.repeated {
				leaf = format.SchemaElement{Name: "v", Type: some(format.Int32), RepetitionType: some(format.Repeated)}
			}
			raw := make([]byte, 8)
			data := oneColumn{schema: []format.SchemaElement{leaf}, numRows: c.numRows, numValues: c.numValue,
				pages: []rawPage{{v1(1, format.Plain), raw, len(raw)}}}.bytes(t)
			_, err := Open("counted.parquet", bytes.NewReader(data), int64(len(data)))
			var e *Error
			if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.File != "counted.parquet" || e.RowGroup != 0 {
				t.Fatalf("got %v, want ErrCorrupt naming the file and row group 0", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want it to say %q", err, c.want)
			}
		})
	}
}

// TestPagesHoldMoreRows: pages that hold more rows or values than the
// footer declares fail the reads that reach the row group's end, whole or
// ranged, instead of returning the declared rows alone.
func TestPagesHoldMoreRows(t *testing.T) {
	var col Column
	ctx := t.Context()
	// The valid file reads whole and in ranges.
	r := countedFile(t, true, 1000, 1000)
	if err := r.ReadColumn(ctx, 0, 0, &col); err != nil || col.NumRows != 1000 || len(col.Int32) != 1000 || col.Int32[999] != 999 {
		t.Fatalf("valid file: %v, %d rows", err, col.NumRows)
	}
	if err := r.ReadColumnRange(ctx, 0, 0, 500, 1000, &col); err != nil || col.NumRows != 500 || col.Int32[0] != 500 {
		t.Fatalf("valid file, rows [500, 1000): %v, %d rows", err, col.NumRows)
	}
	// 600 rows declared, 1000 in the pages and the chunk's count.
	r = countedFile(t, true, 600, 1000)
	wantCorrupt(t, r.ReadColumn(ctx, 0, 0, &col), "more than the 600 rows its row group declares")
	wantCorrupt(t, r.ReadColumnRange(ctx, 0, 0, 0, 600, &col), "more than the 600 rows its row group declares")
	wantCorrupt(t, r.ReadColumnRange(ctx, 0, 0, 300, 600, &col), "more than the 600 rows its row group declares")
	if err := r.ReadColumnRange(ctx, 0, 0, 0, 300, &col); err != nil || col.NumRows != 300 {
		t.Fatalf("rows [0, 300) lie before the damage: %v, %d rows", err, col.NumRows)
	}
	// 600 rows and 600 values declared, 1000 in the pages.
	r = countedFile(t, true, 600, 600)
	wantCorrupt(t, r.ReadColumn(ctx, 0, 0, &col), "more than the 600 rows its row group declares")
	wantCorrupt(t, r.ReadColumnRange(ctx, 0, 0, 0, 600, &col), "more than the 600 rows its row group declares")
	// A flat column's pages with more values than its chunk declares.
	r = countedFile(t, false, 600, 600)
	wantCorrupt(t, r.ReadColumnRange(ctx, 0, 0, 0, 600, &col), "more than the 600 rows its row group declares")
}
