package sources

import (
	"iter"
	"math"
	"math/bits"

	"github.com/rowflow/rowflow/flow"
)

// memSpan is one partition of an in-memory source as one rank reads it: the
// rows [lo, hi) under partition number part.
type memSpan struct{ part, lo, hi int64 }

// memSpans returns the partitions of n rows, size rows each, that the
// run's rank reads. Rank r of world w reads the rows [r*n/w, (r+1)*n/w):
// shares differ by at most one row. A partition split between two ranks
// is read in part by each; the partitions of rank r are numbered k+r for
// the k-th partition of the source, so that numbers increase along the
// source and no two ranks share one. With one rank, partition k has the
// number k. An unending source (n = math.MaxInt64) gives rank r the whole
// partitions k with k % w == r.
func memSpans(n, size int64, env flow.Env) iter.Seq[memSpan] {
	world, rank := int64(max(env.World, 1)), int64(env.Rank)
	return func(yield func(memSpan) bool) {
		if n == math.MaxInt64 {
			for k := rank; k <= (n-1)/size; k += world {
				if !yield(memSpan{k, k * size, k*size + min(size, n-k*size)}) {
					return
				}
			}
			return
		}
		from, to := share(rank, n, world), share(rank+1, n, world)
		for lo := from; lo < to; {
			k := lo / size
			hi := min((k+1)*size, to)
			if !yield(memSpan{k + rank, lo, hi}) {
				return
			}
			lo = hi
		}
	}
}

// share returns i*n/parts without overflow, for 0 <= i <= parts: the
// first row of rank i when n rows are divided among parts ranks.
func share(i, n, parts int64) int64 {
	hi, lo := bits.Mul64(uint64(i), uint64(n))
	q, _ := bits.Div64(hi, lo, uint64(parts))
	return int64(q)
}
