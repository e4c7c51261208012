package pqcol

import (
	"math"

	"github.com/parquet-go/parquet-go/format"
)

// minPageBytes is less than any page takes in a file: a page header alone
// holds its type, two sizes and a data page header.
const minPageBytes = 8

// checkRowCounts checks the row counts of the footer's row groups against
// what their column chunks can hold, before anything is planned from them:
// every row has at least one level entry in every leaf column, exactly one
// in a leaf that is not repeated; and a chunk of b bytes holds at most
// b/minPageBytes+1 pages of at most maxPageSize values each (MaxPageSize
// refuses pages that declare more). The file's total row count must fit in
// an int64.
func checkRowCounts(name string, md *format.FileMetaData, leaves []Leaf, fileSize int64, cfg config) error {
	fail := func(rg int, column string, err error) error {
		return &Error{File: name, RowGroup: rg, Column: column, Page: -1, Offset: -1, Row: -1, Err: err}
	}
	var total int64
	for rg := range md.RowGroups {
		g := &md.RowGroups[rg]
		if g.NumRows < 0 || g.NumRows > math.MaxInt64-total {
			return fail(rg, "", corruptf("the row group declares %d rows", g.NumRows))
		}
		total += g.NumRows
		if len(g.Columns) != len(leaves) {
			continue // reported when a column is read
		}
		for c := range g.Columns {
			leaf := &leaves[c]
			cm := &g.Columns[c].MetaData
			stored := min(max(cm.TotalCompressedSize, 0), fileSize)
			most := (stored/minPageBytes + 1) * cfg.maxPageSize
			switch {
			case cm.NumValues < 0 || cm.NumValues > most:
				return fail(rg, leaf.PathString(), corruptf("the column chunk declares %d values in %d bytes", cm.NumValues, cm.TotalCompressedSize))
			case leaf.MaxRepetitionLevel == 0 && cm.NumValues != g.NumRows:
				return fail(rg, leaf.PathString(), corruptf("the row group declares %d rows but its column chunk holds %d values, one per row",
					g.NumRows, cm.NumValues))
			case cm.NumValues < g.NumRows:
				return fail(rg, leaf.PathString(), corruptf("the row group declares %d rows but its column chunk holds %d values, at least one per row",
					g.NumRows, cm.NumValues))
			}
		}
	}
	return nil
}
