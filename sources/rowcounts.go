package sources

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/shares"
)

var (
	_ flow.RowCounter = (*sliceSource[int])(nil)
	_ flow.RowCounter = (*genSource[int])(nil)
	_ flow.RowCounter = (*parquetSource[int])(nil)
)

// RowCounts returns the size of each partition of the slice.
func (s *sliceSource[T]) RowCounts(_ context.Context, env flow.Env) ([]int64, error) {
	if s.err != nil {
		return nil, s.err
	}
	return spans(int64(len(s.values)), int64(s.cfg.partitionSize), env), nil
}

// RowCounts returns the size of each partition; an unending source has no
// counts.
func (s *genSource[T]) RowCounts(_ context.Context, env flow.Env) ([]int64, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.n == 1<<63-1 {
		return nil, fmt.Errorf("sources: %s is unending: it has no row count", s.cfg.name)
	}
	return spans(s.n, int64(s.cfg.partitionSize), env), nil
}

// spans returns the row counts of the partitions shares.Spans gives.
func spans(n, size int64, env flow.Env) []int64 {
	var counts []int64
	for sp := range shares.Spans(n, size, env.Rank, env.World) {
		counts = append(counts, sp.Hi-sp.Lo)
	}
	return counts
}

// RowCounts returns the rows of each fragment of the plan, from the files'
// footers; it reads no pages. With a RowFilter the counts are not known
// before the rows are read, and it says so.
func (s *parquetSource[T]) RowCounts(ctx context.Context, env flow.Env) ([]int64, error) {
	if s.err == nil && s.cfg.rowFilter != nil {
		return nil, fmt.Errorf("sources: %s has a RowFilter: its row counts are known only after reading the rows", s.cfg.name)
	}
	_, plan, err := s.start(ctx, env)
	if err != nil {
		return nil, err
	}
	var counts []int64
	for fr, err := range plan.Epoch(ctx, env.Epoch) {
		if err != nil {
			return nil, err
		}
		counts = append(counts, fr.To-fr.From)
	}
	return counts, nil
}
