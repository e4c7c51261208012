package sources

import (
	"context"
	"fmt"
	"math"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/rowid"
)

// Slice and Generate read any row directly: they are flow.RandomAccess
// sources, which index shuffles read out of order.

var (
	_ flow.RandomAccess[int] = (*sliceSource[int])(nil)
	_ flow.RandomAccess[int] = (*genSource[int])(nil)
)

// Len returns the number of values.
func (s *sliceSource[T]) Len(context.Context) (int64, error) {
	return int64(len(s.values)), s.err
}

// ReadRange appends values [lo, hi) and their IDs.
func (s *sliceSource[T]) ReadRange(_ context.Context, lo, hi int64, vals []T, ids []rowid.ID) ([]T, []rowid.ID, error) {
	if err := checkRange(s.err, lo, hi, int64(len(s.values))); err != nil {
		return vals, ids, err
	}
	vals = append(vals, s.values[lo:hi]...)
	return vals, flow.OrdinalIDs(s.cfg.Base, uint64(lo), int(hi-lo)).AppendTo(ids), nil
}

// Len returns n, or an error for an unending generator.
func (s *genSource[T]) Len(context.Context) (int64, error) {
	if s.n == math.MaxInt64 {
		return 0, fmt.Errorf("sources: %s: an unending generator has no length", s.cfg.Name)
	}
	return s.n, s.err
}

// ReadRange appends f(lo), …, f(hi-1) and their IDs. An error from f is
// returned with the row's ID.
func (s *genSource[T]) ReadRange(_ context.Context, lo, hi int64, vals []T, ids []rowid.ID) ([]T, []rowid.ID, error) {
	if err := checkRange(s.err, lo, hi, s.n); err != nil {
		return vals, ids, err
	}
	run := flow.OrdinalIDs(s.cfg.Base, uint64(lo), int(hi-lo))
	for i := lo; i < hi; i++ {
		v, err := s.f(i)
		if err != nil {
			return vals, ids, &linkage.RowError{Part: i / int64(s.cfg.PartitionItems), ID: run.At(int(i - lo)), Err: err}
		}
		vals = append(vals, v)
	}
	return vals, run.AppendTo(ids), nil
}

func checkRange(err error, lo, hi, n int64) error {
	if err != nil {
		return err
	}
	if lo < 0 || hi < lo || hi > n {
		return fmt.Errorf("sources: ReadRange(%d, %d) of %d rows", lo, hi, n)
	}
	return nil
}
