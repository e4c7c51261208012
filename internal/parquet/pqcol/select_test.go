package pqcol

import (
	"math/rand/v2"
	"testing"
)

// selectByScan is selectLevels' partial-page case as one pass over the
// levels: the reference that the block-counting version must match.
func selectByScan(rep []byte, first int64, req *request) (lo, hi int, rows, next int64, done bool) {
	next = first
	firstRow := first - 1
	if len(rep) > 0 && rep[0] == 0 {
		firstRow = first
	}
	lo, hi = -1, len(rep)
	row := firstRow
	for i, r := range rep {
		if r == 0 {
			row = next
			next++
		}
		if row >= req.to {
			hi, done = i, true
			break
		}
		if lo < 0 && row >= req.from {
			lo = i
		}
	}
	if lo < 0 {
		lo = hi
	}
	return lo, hi, int64(countEqual(rep[lo:hi], 0)), next, done
}

// TestSelectLevelsMatchesScan compares selectLevels on pages of a
// repeated column (rows of 0 to 40 entries, pages that start inside a
// row or not, hundreds to thousands of entries) with a scan of every
// level, for row ranges before, across, inside and after the page.
func TestSelectLevelsMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	leaf := &Leaf{MaxRepetitionLevel: 1, MaxDefinitionLevel: 2}
	for trial := range 3000 {
		var rep []byte
		for len(rep) < 1+rng.IntN(3000) {
			k := rng.IntN(41)
			if rng.IntN(4) == 0 {
				k = rng.IntN(3) // short rows, and rows of one entry
			}
			rep = append(rep, 0)
			for range k {
				rep = append(rep, 1)
			}
		}
		if rng.IntN(3) == 0 {
			rep = rep[1+rng.IntN(len(rep)-1):] // the page starts inside a row
		}
		first := int64(rng.IntN(50))
		rows := int64(countEqual(rep, 0))
		from := first - 3 + rng.Int64N(rows+6)
		to := from + rng.Int64N(rows+6)
		from, to = max(from, 0), max(to, 0)
		req := &request{from: from, to: to}
		wlo, whi, wrows, wnext, wdone := selectByScan(rep, first, req)
		d := &decoder{leaf: leaf, rep: rep, nextRow: first}
		lo, hi, got := d.selectLevels(len(rep), req)
		if lo != wlo || hi != whi || got != wrows || d.nextRow != wnext || d.done != wdone {
			t.Fatalf("trial %d: %d entries from row %d, rows [%d, %d): got [%d, %d) %d rows, next %d, done %v; want [%d, %d) %d rows, next %d, done %v",
				trial, len(rep), first, from, to, lo, hi, got, d.nextRow, d.done, wlo, whi, wrows, wnext, wdone)
		}
	}
}
