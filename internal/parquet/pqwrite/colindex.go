package pqwrite

import (
	"bytes"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// indexSizeLimit is the length to which byte array bounds are truncated
// in the column index, parquet-go's default: the index of a column of long
// strings stays small. Statistics keep the bounds whole.
const indexSizeLimit = 16

// addPage appends a page's null count and bounds to the column index.
func addPage(ci *format.ColumnIndex, l *Leaf, b bounds, nulls int64) {
	ci.NullPages = append(ci.NullPages, !b.ok)
	ci.NullCounts = append(ci.NullCounts, nulls)
	lo, hi := nonNil(b.min), nonNil(b.max)
	if l.Kind == parquet.ByteArray && !l.Decimal {
		lo, hi = truncateMin(lo), truncateMax(hi)
	}
	ci.MinValues = append(ci.MinValues, lo)
	ci.MaxValues = append(ci.MaxValues, hi)
}

// truncateMin returns a lower bound of v of at most indexSizeLimit bytes:
// its prefix.
func truncateMin(v []byte) []byte { return v[:min(len(v), indexSizeLimit)] }

// truncateMax returns an upper bound of v of at most indexSizeLimit bytes
// where there is one: its prefix, incremented as a big-endian number. A
// prefix of 0xFF bytes has no greater number of its length, and v is kept
// whole.
func truncateMax(v []byte) []byte {
	if len(v) <= indexSizeLimit {
		return v
	}
	p := bytes.Clone(v[:indexSizeLimit])
	for i := len(p) - 1; i >= 0; i-- {
		if p[i]++; p[i] != 0 {
			return p[:i+1]
		}
	}
	return v
}

// boundaryOrder returns the order of the column index's pages: ascending
// if the minimums and the maximums of the pages with values never
// decrease, descending if they never increase. Pages whose bounds are NaN
// leave it unordered.
func boundaryOrder(ci *format.ColumnIndex, l *Leaf) format.BoundaryOrder {
	asc, desc := true, true
	prev := -1
	for i, null := range ci.NullPages {
		if null {
			continue
		}
		if isNaN(ci.MinValues[i], l.Kind) {
			return format.Unordered
		}
		if prev >= 0 {
			cmin := compareEncoded(ci.MinValues[prev], ci.MinValues[i], l)
			cmax := compareEncoded(ci.MaxValues[prev], ci.MaxValues[i], l)
			asc = asc && cmin <= 0 && cmax <= 0
			desc = desc && cmin >= 0 && cmax >= 0
		}
		prev = i
	}
	switch {
	case asc:
		return format.Ascending
	case desc:
		return format.Descending
	}
	return format.Unordered
}
