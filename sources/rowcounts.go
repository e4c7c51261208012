package sources

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
)

var (
	_ flow.RowCounter = (*sliceSource[int])(nil)
	_ flow.RowCounter = (*genSource[int])(nil)
	_ flow.RowCounter = (*parquetSource[int])(nil)
)

// RowCounts returns the size of each partition of the slice.
func (s *sliceSource[T]) RowCounts(context.Context, flow.Env) ([]int64, error) {
	if s.err != nil {
		return nil, s.err
	}
	return spans(int64(len(s.values)), int64(s.cfg.partitionSize))
}

// RowCounts returns the size of each partition; an unending source has no
// counts.
func (s *genSource[T]) RowCounts(context.Context, flow.Env) ([]int64, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.n == 1<<63-1 {
		return nil, fmt.Errorf("sources: %s is unending: it has no row count", s.cfg.name)
	}
	return spans(s.n, int64(s.cfg.partitionSize))
}

func spans(n, size int64) ([]int64, error) {
	counts := make([]int64, 0, (n+size-1)/size)
	for lo := int64(0); lo < n; lo += size {
		counts = append(counts, min(size, n-lo))
	}
	return counts, nil
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
