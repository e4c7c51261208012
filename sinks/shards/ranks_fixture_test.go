package shards_test

import (
	"context"
	"iter"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// everyRank makes src read all its rows on every rank of a run: it says
// that it divides its rows among ranks, and gives src a world of one.
// Tests use it, with a Filter after it, to choose what each rank of a job
// writes: a job whose ranks wrote overlapping rows, say, which no real
// source makes.
func everyRank[T any](src flow.Source[T]) flow.Source[T] { return everyRankSource[T]{src} }

type everyRankSource[T any] struct{ src flow.Source[T] }

func (s everyRankSource[T]) Info() flow.Info {
	i := s.src.Info()
	i.Ranked = true
	return i
}

func (s everyRankSource[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	env.Rank, env.World = 0, 1
	return s.src.Partitions(ctx, env)
}

// pqRankPipeline is pqPipeline as rank of world, every rank writing all
// of rows.
func pqRankPipeline(rows []pqRow, p, rank, world int, opts ...sources.SliceOption) *flow.Pipeline {
	return flow.From(everyRank(sources.Slice(rows, opts...))).
		Via(operators.Map(func(r pqRow) (pqRow, error) { return r, nil })).Parallel(p).
		WithRank(rank, world)
}
