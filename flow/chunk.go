package flow

import (
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// Item is one element of a stream as users see it: the value, its row ID,
// and the partition number of the partition it belongs to.
type Item[T any] struct {
	Part  int64
	ID    rowid.ID
	Value T
}

// Chunk is the unit that travels between stages: consecutive values of one
// partition with their row IDs, laid out as struct-of-arrays.
//
// A chunk never spans two partitions. The last chunk of a partition has End
// set; it may be empty, so a partition whose rows were all filtered out
// still closes. Every stage forwards exactly one End chunk per partition it
// receives, in order.
//
// A chunk is passed by value, and whoever receives it owns its slices: a
// stage may modify them in place, pass them on, or hand them back with
// [Chunk.Release].
type Chunk[T any] struct {
	Part   int64
	IDs    IDs
	Values []T
	End    bool
}

// Len returns the number of values in c.
func (c *Chunk[T]) Len() int { return len(c.Values) }

// Item returns the k-th element of c.
func (c *Chunk[T]) Item(k int) Item[T] {
	return Item[T]{Part: c.Part, ID: c.IDs.At(k), Value: c.Values[k]}
}

// Release recycles the chunk's buffers for later chunks. The chunk must
// not be used afterwards.
func (c *Chunk[T]) Release() {
	slicepool.Recycle(c.Values)
	c.IDs.release()
	*c = Chunk[T]{}
}

func (s *IDs) release() {
	slicepool.Recycle(s.list)
	slicepool.Recycle(s.sel)
	*s = IDs{}
}
