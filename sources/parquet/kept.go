package parquet

import (
	"context"
	"math"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// emitKept pushes the rows of sp that sp.keep marks, in chunks of up to
// sp.chunk rows, with the IDs of their ordinals. The decoder cannot skip
// rows, so the span is decoded block by block into a scratch buffer and
// the kept rows are copied out; a block whose rows are all kept, starting
// a chunk, becomes the chunk as it is.
func (r structReader[T]) emitKept(ctx context.Context, sp span, last bool, out flow.Emitter[T]) error {
	size := int64(sp.chunk)
	lastKept := sp.to - 1 // the span row of the last kept row
	for !sp.keep[lastKept-sp.from] {
		lastKept--
	}
	scratch := slicepool.Alloc[T](int(size))
	defer func() { slicepool.Recycle(scratch) }()
	var c chunkFiller[T]
	for row := sp.from; row <= lastKept; row += size {
		m := min(size, sp.to-row)
		blk := scratch[:m]
		pos := assemble.Pos{Path: sp.path, File: sp.file, RowGroup: sp.rg, FirstRow: sp.first + (row - sp.from)}
		if err := r.d.Next(blk, &pos); err != nil {
			c.release()
			return err
		}
		keep := sp.keep[row-sp.from : row-sp.from+m]
		if c.vals == nil && m == size && allTrue(keep) {
			c.vals, c.sel, c.base, scratch = blk, nil, row, slicepool.Alloc[T](int(size))
			if err := c.push(ctx, sp, row+m, last && row+m > lastKept, out); err != nil {
				return err
			}
			continue
		}
		for i, k := range keep {
			at := row + int64(i)
			if !k {
				continue
			}
			if c.vals != nil && at-c.base > math.MaxUint32 {
				if err := c.push(ctx, sp, at, false, out); err != nil {
					return err
				}
			}
			if c.vals == nil {
				c.vals, c.sel, c.base = slicepool.Alloc[T](int(size)), slicepool.Alloc[uint32](int(size)), at
			}
			c.vals = append(c.vals, blk[i])
			c.sel = append(c.sel, uint32(at-c.base))
			if int64(len(c.vals)) == size || at == lastKept {
				if err := c.push(ctx, sp, at+1, last && at == lastKept, out); err != nil {
					return err
				}
			}
		}
	}
	return nil // the chunk of lastKept was pushed, with End if last
}

// chunkFiller is a chunk of kept rows being filled.
type chunkFiller[T any] struct {
	vals []T
	sel  []uint32 // offsets of the rows from base; nil for consecutive rows
	base int64    // the span row of the chunk's first row
}

// push pushes the chunk, whose rows lie in span rows [base, to).
func (c *chunkFiller[T]) push(ctx context.Context, sp span, to int64, end bool, out flow.Emitter[T]) error {
	ch := flow.Chunk[T]{Part: sp.batch, Values: c.vals, End: end,
		IDs: flow.OrdinalIDs(sp.id, uint64(sp.first+c.base-sp.from), int(to-c.base))}
	switch {
	case c.sel == nil:
	case len(c.sel) == ch.IDs.Len():
		slicepool.Recycle(c.sel)
	default:
		ch.IDs.Keep(c.sel)
	}
	c.vals, c.sel = nil, nil
	return out.Push(ctx, ch)
}

func (c *chunkFiller[T]) release() {
	slicepool.Recycle(c.vals)
	slicepool.Recycle(c.sel)
	c.vals, c.sel = nil, nil
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// keptIDs returns the IDs of the span's rows at the given offsets from
// sp.from, which must be ascending and not empty.
func keptIDs(sp span, rows []uint32) flow.IDs {
	first, last := rows[0], rows[len(rows)-1]
	ids := flow.OrdinalIDs(sp.id, uint64(sp.first)+uint64(first), int(last-first)+1)
	if len(rows) == ids.Len() {
		return ids
	}
	sel := slicepool.Alloc[uint32](len(rows))
	for _, r := range rows {
		sel = append(sel, r-first)
	}
	ids.Keep(sel)
	return ids
}

// keptRows returns the offsets of the rows that keep keeps among n, or
// nil if keep is nil (every row is kept).
func keptRows(keep []bool, n int) []uint32 {
	if keep == nil {
		return nil
	}
	rows := make([]uint32, 0, n)
	for i, k := range keep[:n] {
		if k {
			rows = append(rows, uint32(i))
		}
	}
	return rows
}
