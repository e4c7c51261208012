package flow

import (
	"context"

	"github.com/rowflow/rowflow/rowid"
)

// RandomAccess is a source that knows its length and can read any range
// of its rows, in any order: an in-memory slice, a generator, an indexed
// file. Shuffles over such a source need not hold rows: a shuffled epoch
// is a permutation of row numbers, computed position by position.
//
// Row i must always be the same value with the same ID, whatever was read
// before; its ID should follow the row-ID rules, as the source's
// Partitions gives it.
type RandomAccess[T any] interface {
	Source[T]
	// Len returns the number of rows. An error (the source cannot tell,
	// or has no end) fails the run that asked.
	Len(ctx context.Context) (int64, error)
	// ReadRange appends the values of rows [lo, hi) to vals and their IDs
	// to ids, and returns the extended slices. It may be called from
	// several goroutines at once.
	ReadRange(ctx context.Context, lo, hi int64, vals []T, ids []rowid.ID) ([]T, []rowid.ID, error)
}
