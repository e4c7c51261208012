package assemble

import (
	"fmt"
	"unsafe"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Decoder fills rows of T from the columns of one fragment, chunk after
// chunk. Its columns are the Plan's leaves, in order; read them, call
// Reset, then call Next until the fragment's rows are used up. A Decoder
// is used by one goroutine at a time.
type Decoder[T any] struct {
	plan    *Plan[T]
	Columns []pqcol.Column
	cursors []cursor
}

// NewDecoder returns a Decoder for p with empty columns.
func NewDecoder[T any](p *Plan[T]) *Decoder[T] {
	return &Decoder[T]{plan: p, Columns: make([]pqcol.Column, len(p.leaves)), cursors: make([]cursor, len(p.leaves))}
}

// Plan returns the decoder's plan.
func (d *Decoder[T]) Plan() *Plan[T] { return d.plan }

// Reset moves every column's cursor back to its first row, after the
// columns have been read anew.
func (d *Decoder[T]) Reset() { clear(d.cursors) }

// Next fills dst with the next len(dst) rows. pos says where they come
// from, for constant fields and errors, which name the file, the row
// group, the first row and the column.
func (d *Decoder[T]) Next(dst []T, pos *Pos) error {
	if len(dst) == 0 {
		return nil
	}
	if d.plan.partial {
		clear(dst)
	}
	var zero T
	base, stride := unsafe.Pointer(&dst[0]), unsafe.Sizeof(zero)
	for i := range d.plan.fields {
		f := &d.plan.fields[i]
		var c *pqcol.Column
		var cur *cursor
		if f.col >= 0 {
			c, cur = &d.Columns[f.col], &d.cursors[f.col]
		}
		if err := f.fill(c, cur, base, stride, len(dst), pos); err != nil {
			return fmt.Errorf("assemble: %s: row group %d, rows from %d: column %q: %w", pos.Path, pos.RowGroup, pos.FirstRow, f.name, err)
		}
	}
	return nil
}
