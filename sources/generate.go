package sources

import (
	"context"
	"fmt"
	"iter"
	"math"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/shares"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// Generate returns a source of the values f(0), f(1), … f(n-1), or of an
// unending sequence if n is negative (end it with operators.Take).
// Partition k holds indexes [k*size, (k+1)*size) for the [PartitionItems]
// size, and has partition number k. Ranks divide the indexes as [Slice]
// divides its values; an unending generator gives rank r of w the
// partitions k with k % w == r. Value i gets the ID rowid.Ordinal(i)
// combined with the source's ID (see [Named]; the default name is
// "generate"). f may be called concurrently when the source runs in
// parallel. An error from f fails the run, naming the index's partition
// and row ID.
//
// Options: [PartitionItems], [ChunkSize], [Named].
func Generate[T any](n int64, f func(i int64) (T, error), opts ...SliceOption) flow.RandomAccess[T] {
	c, err := buildMem("generate", opts)
	if f == nil && err == nil {
		err = fmt.Errorf("sources: %s: nil function", c.Name)
	}
	if n < 0 {
		n = math.MaxInt64
	}
	return &genSource[T]{n: n, f: f, cfg: c, err: err}
}

type genSource[T any] struct {
	n   int64
	f   func(int64) (T, error)
	cfg memConfig
	err error
}

func (s *genSource[T]) Info() flow.Info {
	return flow.Info{Name: s.cfg.Name, Settings: s.cfg.settings(s.n), Ranked: true}
}

// Err reports a bad option.
func (s *genSource[T]) Err() error { return s.err }

func (s *genSource[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		if s.err != nil {
			yield(flow.Partition[T]{}, s.err)
			return
		}
		for sp := range shares.Spans(s.n, int64(s.cfg.PartitionItems), env.Rank, env.World) {
			p := flow.Partition[T]{Part: sp.Part, Read: func(ctx context.Context, out flow.Emitter[T]) error {
				return s.read(ctx, sp.Part, sp.Lo, sp.Hi, out)
			}}
			if !yield(p, nil) {
				return
			}
		}
	}
}

func (s *genSource[T]) read(ctx context.Context, batch, lo, hi int64, out flow.Emitter[T]) error {
	for i := lo; i < hi; i += int64(s.cfg.ChunkSize) {
		j := i + min(int64(s.cfg.ChunkSize), hi-i)
		c := flow.Chunk[T]{Part: batch, IDs: flow.OrdinalIDs(s.cfg.Base, uint64(i), int(j-i)), End: j == hi}
		c.Values = slicepool.Alloc[T](int(j - i))
		for k := i; k < j; k++ {
			v, err := s.f(k)
			if err != nil {
				err = flow.ErrorAt(&c, int(k-i), err)
				c.Release()
				return err
			}
			c.Values = append(c.Values, v)
		}
		if err := out.Push(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
