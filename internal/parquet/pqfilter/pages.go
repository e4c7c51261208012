package pqfilter

import (
	"context"
	"slices"

	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Narrow returns the row ranges, ascending and disjoint, within rows
// [from, to) of row group rg where the filter may be true: none if the
// range is empty or the row group's statistics rule it out, else those
// that [Predicate.PageRanges] leaves.
func (p *Predicate) Narrow(ctx context.Context, r *pqcol.Reader, rg int, from, to int64) ([][2]int64, error) {
	if p.prune[rg] || from == to {
		return nil, nil
	}
	return p.PageRanges(ctx, r, rg, from, to)
}

// pageCol is the page index of one filter column in one row group.
type pageCol struct {
	pages []pqformat.PageLocation // nil if the column has no page index
	index *pqformat.ColumnIndex
	k     int // the page holding the rows being looked at
}

// PageRanges returns the row ranges, ascending and disjoint, within rows
// [from, to) of row group rg where the filter may be true, going by the
// page index. The rows are cut at every page boundary of every filter
// column that has a page index, and the filter is evaluated on the
// statistics of each piece: those of the page holding it, for a column
// with a page index, and those of the column chunk for one without.
// Adjacent pieces where it may be true are merged. If no filter column has
// a page index, the result is [from, to) itself.
func (p *Predicate) PageRanges(ctx context.Context, r *pqcol.Reader, rg int, from, to int64) ([][2]int64, error) {
	md := r.File().Metadata()
	g := &md.RowGroups[rg]
	cols := make([]pageCol, len(p.leaves))
	st := make([]colStats, len(p.leaves))
	var cuts []int64
	for j, leaf := range p.leaves {
		offsets, err := r.OffsetIndex(ctx, rg, leaf)
		if err != nil {
			return nil, err
		}
		index, err := r.ColumnIndex(ctx, rg, leaf)
		if err != nil {
			return nil, err
		}
		if offsets == nil || index == nil {
			st[j] = chunkStats(md, g, &p.infos[j])
			continue
		}
		cols[j] = pageCol{pages: offsets.PageLocations, index: index}
		for _, pg := range offsets.PageLocations {
			if pg.FirstRowIndex > from && pg.FirstRowIndex < to {
				cuts = append(cuts, pg.FirstRowIndex)
			}
		}
	}
	if !slices.ContainsFunc(cols, func(c pageCol) bool { return c.pages != nil }) {
		return [][2]int64{{from, to}}, nil
	}
	slices.Sort(cuts)
	cuts = append(slices.Compact(cuts), to)
	var out [][2]int64
	lo := from
	for _, hi := range cuts {
		for j := range cols {
			if c := &cols[j]; c.pages != nil {
				for c.k+1 < len(c.pages) && c.pages[c.k+1].FirstRowIndex <= lo {
					c.k++
				}
				st[j] = pageStats(md, &p.infos[j], c, g.NumRows)
			}
		}
		if canTrue, _ := p.root.possible(st); canTrue {
			if n := len(out); n > 0 && out[n-1][1] == lo {
				out[n-1][1] = hi
			} else {
				out = append(out, [2]int64{lo, hi})
			}
		}
		lo = hi
	}
	return out, nil
}

// pageStats returns the statistics of page c.k of a filter column whose
// row group has numRows rows, by the rules for column chunks (see bounds).
// The column index keeps no deprecated min and max, and a page that is
// not all null has both bounds, an empty byte string included.
func pageStats(md *pqformat.FileMetaData, info *statInfo, c *pageCol, numRows int64) colStats {
	k, index := c.k, c.index
	rows := numRows - c.pages[k].FirstRowIndex
	if k+1 < len(c.pages) {
		rows = c.pages[k+1].FirstRowIndex - c.pages[k].FirstRowIndex
	}
	if index.NullPages[k] || len(index.NullCounts) > 0 && rows > 0 && index.NullCounts[k] == rows {
		return colStats{allNull: true} // a filter column is not repeated: a row is a value
	}
	minb, maxb := index.MinValues[k], index.MaxValues[k]
	if info.bytes {
		if minb == nil {
			minb = []byte{}
		}
		if maxb == nil {
			maxb = []byte{}
		}
		if allFF(maxb) {
			// Writers truncate long bounds, rounding a maximum up; one of
			// only 0xff bytes cannot be rounded up, and parquet-go leaves
			// it lower than the value it stands for.
			return colStats{}
		}
	}
	minb, maxb, ok := bounds(md, info, &pqformat.Statistics{MinValue: minb, MaxValue: maxb})
	if !ok {
		return colStats{}
	}
	return colStats{min: minb, max: maxb}
}

// allFF reports whether b is not empty and all its bytes are 0xff.
func allFF(b []byte) bool {
	for _, c := range b {
		if c != 0xff {
			return false
		}
	}
	return len(b) > 0
}
