package operators

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// Filter returns a stage that keeps the values for which keep returns true,
// in order, with their IDs.
func Filter[T any](keep func(T) bool) flow.Stage {
	return flow.NewStage[T, T](filterOp[T]{keep: keep})
}

type filterOp[T any] struct{ keep func(T) bool }

func (filterOp[T]) Info() flow.Info { return flow.Info{Name: "filter"} }

// Err reports a nil function.
func (f filterOp[T]) Err() error { return nilFunc("Filter", f.keep == nil) }

func (f filterOp[T]) NewProcessor(flow.Env) flow.Processor[T, T] {
	return &filterProc[T]{keep: f.keep}
}

type filterProc[T any] struct {
	keep func(T) bool
	passThrough[T]
}

func (p *filterProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) (err error) {
	vals := c.Values
	kept := slicepool.Alloc[uint32](len(vals))[:len(vals)]
	k, j := 0, 0
	defer guard(&c, &k, &err)
	keep := p.keep
	for ; k < len(vals); k++ {
		// Branch-free compaction: write every value, advance on keep.
		v := vals[k]
		vals[j], kept[j] = v, uint32(k)
		if keep(v) {
			j++
		}
	}
	c.Values = vals[:j]
	c.IDs.Keep(kept[:j])
	if len(c.Values) == 0 && !c.End {
		c.Release()
		return nil
	}
	return out.Push(ctx, c)
}
