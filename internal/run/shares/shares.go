// Package shares divides n rows among the ranks of a run, and among
// partitions: the one arithmetic behind the even shares of the dataset
// planner, the in-memory sources and the index shuffle.
package shares

import (
	"iter"
	"math"
	"math/bits"
)

// Point returns i*n/parts without overflow, for 0 <= i <= parts: where
// part i starts when n rows are cut into parts runs whose sizes differ by
// at most one.
func Point(i, n, parts int64) int64 {
	hi, lo := bits.Mul64(uint64(i), uint64(n))
	q, _ := bits.Div64(hi, lo, uint64(parts))
	return int64(q)
}

// Span is one partition as one rank reads it: the rows [Lo, Hi) under
// partition number Part.
type Span struct{ Part, Lo, Hi int64 }

// Spans returns the partitions of n rows, size rows each, that rank reads
// of world. Rank r reads the rows [r*n/world, (r+1)*n/world): shares
// differ by at most one row. A partition split between two ranks is read
// in part by each; rank r numbers the k-th partition k+r, so that numbers
// increase along the rows and no two ranks share one. With one rank,
// partition k has the number k. An endless n (math.MaxInt64) gives rank r
// the whole partitions k with k % world == r.
func Spans(n, size int64, rank, world int) iter.Seq[Span] {
	w, r := int64(max(world, 1)), int64(rank)
	return func(yield func(Span) bool) {
		if n == math.MaxInt64 {
			for k := r; k <= (n-1)/size; k += w {
				if !yield(Span{k, k * size, k*size + min(size, n-k*size)}) {
					return
				}
			}
			return
		}
		from, to := Point(r, n, w), Point(r+1, n, w)
		for lo := from; lo < to; {
			k := lo / size
			hi := min((k+1)*size, to)
			if !yield(Span{k + r, lo, hi}) {
				return
			}
			lo = hi
		}
	}
}
