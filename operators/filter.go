package operators

import (
	"context"

	"github.com/rowflow/rowflow/flow"
)

// Filter returns a stage that keeps the values for which keep returns true,
// in order, with their IDs.
func Filter[T any](keep func(T) bool) flow.Stage {
	return flow.NewStage[T, T](filterOp[T]{keep: keep})
}

type filterOp[T any] struct{ keep func(T) bool }

func (filterOp[T]) Info() flow.Info { return flow.Info{Name: "filter"} }

func (f filterOp[T]) NewProcessor(flow.Env) flow.Processor[T, T] {
	return &filterProc[T]{keep: f.keep}
}

type filterProc[T any] struct {
	keep func(T) bool
	passThrough[T]
}

func (p *filterProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) (err error) {
	kept := flow.Alloc[uint32](len(c.Values))
	k := 0
	defer guard(&c, &k, &err)
	for ; k < len(c.Values); k++ {
		if v := c.Values[k]; p.keep(v) {
			c.Values[len(kept)] = v
			kept = append(kept, uint32(k))
		}
	}
	c.Values = c.Values[:len(kept)]
	c.IDs.Keep(kept)
	if len(c.Values) == 0 && !c.End {
		c.Release()
		return nil
	}
	return out.Push(ctx, c)
}
