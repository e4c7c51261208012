package sources

import (
	"context"
	"iter"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/shares"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// Slice returns a source of the values of values, in order. Partition k
// holds values [k*size, (k+1)*size) for the [PartitionItems] size, and has
// partition number k. In a run of several ranks ([flow.Pipeline.WithRank])
// rank r of w reads values [r*n/w, (r+1)*n/w) of the n, so shares differ
// by at most one value; a partition that two ranks share is read in part
// by each, and rank r numbers partition k as k+r. Row i gets the ID rowid.Ordinal(i) combined with the
// source's ID (see [Named]; the default name is "slice"). The source
// copies values as it reads them; the caller must not modify values while
// a run reads it.
//
// Options: [PartitionItems], [ChunkSize], [Named].
func Slice[T any](values []T, opts ...SliceOption) flow.RandomAccess[T] {
	c, err := buildMem("slice", opts)
	return &sliceSource[T]{values: values, cfg: c, err: err}
}

type sliceSource[T any] struct {
	values []T
	cfg    memConfig
	err    error
}

// Info's settings cover the number of values and the options, not the
// values themselves.
func (s *sliceSource[T]) Info() flow.Info {
	return flow.Info{Name: s.cfg.Name, Settings: s.cfg.settings(int64(len(s.values))), Ranked: true}
}

// Err reports a bad option.
func (s *sliceSource[T]) Err() error { return s.err }

func (s *sliceSource[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		if s.err != nil {
			yield(flow.Partition[T]{}, s.err)
			return
		}
		for sp := range shares.Spans(int64(len(s.values)), int64(s.cfg.PartitionItems), env.Rank, env.World) {
			p := flow.Partition[T]{Part: sp.Part, Read: func(ctx context.Context, out flow.Emitter[T]) error {
				return s.read(ctx, sp.Part, int(sp.Lo), int(sp.Hi), out)
			}}
			if !yield(p, nil) {
				return
			}
		}
	}
}

func (s *sliceSource[T]) read(ctx context.Context, batch int64, lo, hi int, out flow.Emitter[T]) error {
	for i := lo; i < hi; i += s.cfg.ChunkSize {
		j := min(i+s.cfg.ChunkSize, hi)
		vals := append(slicepool.Alloc[T](j-i), s.values[i:j]...)
		c := flow.Chunk[T]{Part: batch, IDs: flow.OrdinalIDs(s.cfg.Base, uint64(i), j-i), Values: vals, End: j == hi}
		if err := out.Push(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
