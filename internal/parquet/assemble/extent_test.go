package assemble

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// extentByScan is listExtent as one pass over the levels: the reference
// that the block-counting version must match, errors included.
func extentByScan(c *pqcol.Column, cur *cursor, n, maxDef, repDef int) (end, elems, vals int, err error) {
	reps, defs := c.RepLevels, c.DefLevels
	end = cur.lvl
	for r := range n {
		if end >= len(reps) || reps[end] != 0 {
			return 0, 0, 0, fmt.Errorf("row %d does not start at level entry %d", c.FirstRow+int64(r), end)
		}
		for first := true; end < len(reps) && (first || reps[end] != 0); first = false {
			if int(defs[end]) >= repDef {
				elems++
			}
			if int(defs[end]) == maxDef {
				vals++
			}
			end++
		}
	}
	return end, elems, vals, nil
}

// TestListExtentMatchesScan compares listExtent with a scan of every level
// on random columns of one level of repetition (null and empty lists, null
// elements, rows of up to 40 entries), from random cursors, for row counts
// within and past the column, and for a cursor that is not at a row start.
func TestListExtentMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 50))
	for trial := range 3000 {
		maxDef, repDef := 3, 2 // optional list, optional elements
		if trial%2 == 0 {
			maxDef = 2 // required elements
		}
		var reps, defs []byte
		rows := 1 + rng.IntN(200)
		for range rows {
			k := rng.IntN(41)
			if k == 0 || rng.IntN(8) == 0 {
				reps, defs = append(reps, 0), append(defs, byte(rng.IntN(repDef))) // a null or empty list
				continue
			}
			for j := range k {
				d := maxDef
				if maxDef > repDef && rng.IntN(10) == 0 {
					d = repDef // a null element
				}
				reps, defs = append(reps, byte(min(j, 1))), append(defs, byte(d))
			}
		}
		c := &pqcol.Column{FirstRow: int64(rng.IntN(1000)), RepLevels: reps, DefLevels: defs}
		lvl := 0
		if rng.IntN(4) > 0 {
			lvl = rng.IntN(len(reps) + 1) // at a row start or not, or at the end
		}
		n := rng.IntN(rows + 3)
		wend, welems, wvals, werr := extentByScan(c, &cursor{lvl: lvl}, n, maxDef, repDef)
		end, elems, vals, err := listExtent(c, &cursor{lvl: lvl}, n, maxDef, repDef)
		if fmt.Sprint(err) != fmt.Sprint(werr) || err == nil && (end != wend || elems != welems || vals != wvals) {
			t.Fatalf("trial %d: %d entries, cursor %d, %d rows: got %d %d %d %v, want %d %d %d %v",
				trial, len(reps), lvl, n, end, elems, vals, err, wend, welems, wvals, werr)
		}
	}
}

// TestNumberListsMatchSlowPath fills []int32 fields of random rows (null
// and empty lists, rows of up to 40 elements, none null) through the
// numeric fast path and through the general list loader, chunk by chunk:
// the same slices, nil for rows without elements.
func TestNumberListsMatchSlowPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 60))
	type row struct{ L []int32 }
	g := numGetter[int32, int32](func(c *pqcol.Column) []int32 { return c.Int32 })
	const maxDef, repDef = 2, 2
	fast, slow := g.list(0, maxDef, repDef), loader[int32](g.load).list(0, maxDef, repDef)
	for trial := range 200 {
		rows := 1 + rng.IntN(300)
		c := &pqcol.Column{Leaf: pqcol.Leaf{Kind: parquet.Int32, MaxDefinitionLevel: maxDef, MaxRepetitionLevel: 1}}
		for range rows {
			k := rng.IntN(41)
			if k == 0 || rng.IntN(6) == 0 {
				c.RepLevels, c.DefLevels = append(c.RepLevels, 0), append(c.DefLevels, byte(rng.IntN(repDef)))
				continue
			}
			for j := range k {
				c.RepLevels, c.DefLevels = append(c.RepLevels, byte(min(j, 1))), append(c.DefLevels, maxDef)
				c.Int32 = append(c.Int32, rng.Int32())
			}
		}
		got, want := make([]row, rows), make([]row, rows)
		var gc, wc cursor
		for from := 0; from < rows; {
			n := min(1+rng.IntN(64), rows-from)
			if err := fast(c, &gc, unsafe.Pointer(&got[from]), unsafe.Sizeof(row{}), n, nil); err != nil {
				t.Fatal(err)
			}
			if err := slow(c, &wc, unsafe.Pointer(&want[from]), unsafe.Sizeof(row{}), n, nil); err != nil {
				t.Fatal(err)
			}
			from += n
		}
		if !reflect.DeepEqual(got, want) || gc != wc {
			t.Fatalf("trial %d: fast path %v (cursor %v), general loader %v (cursor %v)", trial, got, gc, want, wc)
		}
	}
}
