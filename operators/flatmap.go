package operators

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// flatMapChunk is the size at which FlatMap pushes a chunk before the
// input chunk is done, so that one input chunk with many outputs does not
// make one huge chunk.
const flatMapChunk = 4096

// FlatMap returns a stage that replaces every value v by the values f(v),
// in order; zero values drop v. The k-th output of an input whose ID is id
// gets the ID id.Fork() followed by k calls of Next, so outputs of
// different inputs never share an ID. f may reuse the slice it returns
// from one call to the next.
func FlatMap[In, Out any](f func(In) ([]Out, error)) flow.Stage {
	return flow.NewStage[In, Out](flatMapOp[In, Out]{f: f})
}

type flatMapOp[In, Out any] struct{ f func(In) ([]Out, error) }

func (flatMapOp[In, Out]) Info() flow.Info { return flow.Info{Name: "flat-map"} }

// Err reports a nil function.
func (m flatMapOp[In, Out]) Err() error { return nilFunc("FlatMap", m.f == nil) }

func (m flatMapOp[In, Out]) NewProcessor(flow.Env) flow.Processor[In, Out] {
	return &flatMapProc[In, Out]{f: m.f}
}

type flatMapProc[In, Out any] struct {
	f func(In) ([]Out, error)
	passThrough[Out]
}

func (p *flatMapProc[In, Out]) Process(ctx context.Context, c flow.Chunk[In], out flow.Emitter[Out]) (err error) {
	defer c.Release()
	vals := slicepool.Alloc[Out](len(c.Values))
	ids := slicepool.Alloc[rowid.ID](len(c.Values))
	k := 0
	defer guard(&c, &k, &err)
	for ; k < len(c.Values); k++ {
		outs, err := p.f(c.Values[k])
		if err != nil {
			return flow.ErrorAt(&c, k, err)
		}
		if len(outs) == 0 {
			continue
		}
		id := c.IDs.At(k).Fork()
		for _, v := range outs {
			vals = append(vals, v)
			ids = append(ids, id)
			id = id.Next()
		}
		if len(vals) >= flatMapChunk && k+1 < len(c.Values) {
			full := flow.Chunk[Out]{Part: c.Part, IDs: flow.ListIDs(ids), Values: vals}
			if err := out.Push(ctx, full); err != nil {
				return err
			}
			vals, ids = slicepool.Alloc[Out](len(c.Values)), slicepool.Alloc[rowid.ID](len(c.Values))
		}
	}
	if len(vals) == 0 && !c.End {
		slicepool.Recycle(vals)
		slicepool.Recycle(ids)
		return nil
	}
	return out.Push(ctx, flow.Chunk[Out]{Part: c.Part, IDs: flow.ListIDs(ids), Values: vals, End: c.End})
}
