package sources

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/shares"
)

var (
	_ flow.RowCounter = (*sliceSource[int])(nil)
	_ flow.RowCounter = (*genSource[int])(nil)
)

// RowCounts returns the size of each partition of the slice.
func (s *sliceSource[T]) RowCounts(_ context.Context, env flow.Env) ([]int64, error) {
	if s.err != nil {
		return nil, s.err
	}
	return spans(int64(len(s.values)), int64(s.cfg.PartitionItems), env), nil
}

// RowCounts returns the size of each partition; an unending source has no
// counts.
func (s *genSource[T]) RowCounts(_ context.Context, env flow.Env) ([]int64, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.n == 1<<63-1 {
		return nil, fmt.Errorf("sources: %s is unending: it has no row count", s.cfg.Name)
	}
	return spans(s.n, int64(s.cfg.PartitionItems), env), nil
}

// spans returns the row counts of the partitions shares.Spans gives.
func spans(n, size int64, env flow.Env) []int64 {
	var counts []int64
	for sp := range shares.Spans(n, size, env.Rank, env.World) {
		counts = append(counts, sp.Hi-sp.Lo)
	}
	return counts
}
