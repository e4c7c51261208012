package operators

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/internal/random/permute"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/run/shares"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// IndexShuffle returns a source that reads src in a random order, as
// Grain's index shuffle does: epoch e's position i holds row π(i) of src,
// where π is a keyed permutation of [0, n) whose key comes from the PCG
// stream of (seed, e): every order of the rows is equally likely over
// seeds (up to 2^22 rows a Fisher–Yates shuffle kept as a table of 4n
// bytes; above, a swap-or-not shuffle in O(1) memory). Every epoch
// is a different permutation of all of src's rows, each with its own ID;
// the order is a pure function of (seed, epoch, n).
//
// The source holds no rows, and π(i) is computed directly for any i, so a
// run can start at any position of an epoch at no cost beyond making π. Its partitions are [PartitionItems] positions each (default 4096),
// numbered 0, 1, 2, … in every epoch; they are read independently, so
// IndexShuffle may run with Parallel. A run of rank r of w (see
// flow.Pipeline.WithRank) reads positions [r*n/w, (r+1)*n/w) of each
// epoch's order, so shares differ by at most one row and the ranks
// together read every row once per epoch; a partition two ranks share is
// read in part by each, rank r numbering partition b as b+r.
//
// Cost: making π takes a few ns a row per epoch up to 2^22 rows, then a
// table lookup a row; above, π(i) costs 2·⌈log2 n⌉ rounds of a few
// multiplies (about 150 ns a row at 2^24 rows, where the Feistel network
// it replaced took 40 ns but did not give uniform orders). Plus one
// ReadRange call a row.
func IndexShuffle[T any](src flow.RandomAccess[T], opts ...Common) flow.Source[T] {
	s := &indexShuffle[T]{src: src, cfg: shapeConfig{name: "index-shuffle", perPart: 4096}}
	s.err = configure(&s.cfg, opts)
	if s.err == nil && src == nil {
		s.err = errors.New("operators: IndexShuffle of a nil source")
	}
	if e, ok := src.(interface{ Err() error }); ok && s.err == nil {
		s.err = e.Err()
	}
	return s
}

type indexShuffle[T any] struct {
	src flow.RandomAccess[T]
	cfg shapeConfig
	err error
}

// indexChunk is the most rows an index shuffle's chunk carries.
const indexChunk = 1024

func (s *indexShuffle[T]) Info() flow.Info {
	var in flow.Info
	if s.src != nil {
		in = s.src.Info()
	}
	return flow.Info{Name: s.cfg.name, Settings: s.cfg.settings(fmt.Sprintf("source=%q %q", in.Name, in.Settings)), Ranked: true}
}

// Err reports a bad option or a nil source.
func (s *indexShuffle[T]) Err() error { return s.err }

func (s *indexShuffle[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		if s.err != nil {
			yield(flow.Partition[T]{}, s.err)
			return
		}
		n, err := s.src.Len(ctx)
		per := int64(s.cfg.perPart)
		switch {
		case err != nil:
		case n < 0:
			err = fmt.Errorf("operators: %s: source length %d", s.cfg.name, n)
		case (n+per-1)/per > 1<<epoch.Bits:
			err = fmt.Errorf("operators: %s: %d rows make more than 2^%d partitions of %d", s.cfg.name, n, epoch.Bits, per)
		}
		if err != nil {
			yield(flow.Partition[T]{}, err)
			return
		}
		key := pcg.Keyed(env.Seed, uint64(env.Epoch), uint64(env.Position), purposeIndex)
		perm := permute.New(uint64(n), uint64(key.Next())<<32|uint64(key.Next()))
		// Rank r of w reads positions [r*n/w, (r+1)*n/w) of the epoch's
		// order (see shares.Spans).
		for sp := range shares.Spans(n, per, env.Rank, env.World) {
			p := flow.Partition[T]{Part: sp.Part, Read: func(ctx context.Context, out flow.Emitter[T]) error {
				return s.read(ctx, perm, sp.Part, sp.Lo, sp.Hi, out)
			}}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// read pushes the rows at positions [lo, hi) of the permutation. The row
// numbers of a chunk are computed first and read after, so that the reads,
// which miss the cache in a large input, overlap.
func (s *indexShuffle[T]) read(ctx context.Context, perm permute.Perm, batch, lo, hi int64, out flow.Emitter[T]) error {
	rows := slicepool.Alloc[int64](indexChunk)
	defer func() { slicepool.Recycle(rows) }()
	for c := lo; c < hi; c += indexChunk {
		end := min(c+indexChunk, hi)
		rows = rows[:0]
		for i := c; i < end; i++ {
			rows = append(rows, int64(perm.At(uint64(i))))
		}
		vals, ids := slicepool.Alloc[T](len(rows)), slicepool.Alloc[rowid.ID](len(rows))
		var err error
		for _, row := range rows {
			if vals, ids, err = s.src.ReadRange(ctx, row, row+1, vals, ids); err != nil {
				break
			}
		}
		if err != nil {
			slicepool.Recycle(vals)
			slicepool.Recycle(ids)
			var re *linkage.RowError
			if errors.As(err, &re) {
				re.Part = batch
			}
			return err
		}
		if err := out.Push(ctx, flow.Chunk[T]{Part: batch, IDs: flow.ListIDs(ids), Values: vals, End: end == hi}); err != nil {
			return err
		}
	}
	return nil
}
