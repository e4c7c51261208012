package operators

import (
	"context"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
)

// MapChunks returns a stage that maps a whole chunk of values with one
// call: f(in, out) must set out[k] to the image of in[k] for every k; out
// has the length of in. IDs and partition numbers pass through unchanged, as
// with [Map]. Calling f once per chunk (up to the source's chunk size,
// 1024 by default) instead of once per value removes the cost of a
// function call per value, and lets f use loops the compiler can unroll
// or vectorise.
//
// When In and Out are the same type, out is in itself: the map works in
// place, and f must read in[k] before it writes out[k] (an element-wise
// loop does). Otherwise out is a recycled buffer whose old contents f must
// not read. Neither slice may be kept after f returns.
//
// An error from f fails the run with a [flow.StageError] naming the stage
// and the batch; f does not say which row failed. Like Map, MapChunks may
// run on several workers, where f is called concurrently.
func MapChunks[In, Out any](f func(in []In, out []Out) error) flow.Stage {
	return flow.NewStage[In, Out](mapChunksOp[In, Out]{f: f})
}

type mapChunksOp[In, Out any] struct{ f func([]In, []Out) error }

func (mapChunksOp[In, Out]) Info() flow.Info { return flow.Info{Name: "map-chunks", OneToOne: true} }

func (m mapChunksOp[In, Out]) NewProcessor(flow.Env) flow.Processor[In, Out] {
	return &mapChunksProc[In, Out]{f: m.f, inPlace: reflect.TypeFor[In]() == reflect.TypeFor[Out]()}
}

type mapChunksProc[In, Out any] struct {
	f       func([]In, []Out) error
	inPlace bool
	passThrough[Out]
}

func (p *mapChunksProc[In, Out]) Process(ctx context.Context, c flow.Chunk[In], out flow.Emitter[Out]) error {
	var dst []Out
	if p.inPlace {
		dst = *(*[]Out)(unsafe.Pointer(&c.Values))
	} else {
		dst = flow.Alloc[Out](len(c.Values))[:len(c.Values)]
	}
	if err := p.f(c.Values, dst); err != nil {
		if !p.inPlace {
			flow.Recycle(dst)
		}
		c.Release()
		return err
	}
	if !p.inPlace {
		flow.Recycle(c.Values)
	}
	return out.Push(ctx, flow.Chunk[Out]{Part: c.Part, IDs: c.IDs, Values: dst, End: c.End})
}

// FilterChunks returns a stage that filters a whole chunk of values with
// one call: f(vals, kept) appends to kept, in increasing order, the
// positions in vals of the values to keep, and returns the extended
// slice. kept is empty and has room for len(vals) positions. The kept
// values stay in order, with their IDs, as with [Filter]. f must not
// modify vals, and must not keep either slice after it returns.
//
// A position out of range or out of order fails the run. An error from f
// fails the run naming the stage and the batch. Like Filter, FilterChunks
// may run on several workers, where f is called concurrently.
func FilterChunks[T any](f func(vals []T, kept []uint32) ([]uint32, error)) flow.Stage {
	return flow.NewStage[T, T](filterChunksOp[T]{f: f})
}

type filterChunksOp[T any] struct {
	f func([]T, []uint32) ([]uint32, error)
}

func (filterChunksOp[T]) Info() flow.Info { return flow.Info{Name: "filter-chunks"} }

func (m filterChunksOp[T]) NewProcessor(flow.Env) flow.Processor[T, T] {
	return &filterChunksProc[T]{f: m.f}
}

type filterChunksProc[T any] struct {
	f func([]T, []uint32) ([]uint32, error)
	passThrough[T]
}

func (p *filterChunksProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	vals := c.Values
	kept, err := p.f(vals, flow.Alloc[uint32](len(vals)))
	if err == nil {
		err = gather(vals, kept)
	}
	if err != nil {
		flow.Recycle(kept)
		c.Release()
		return err
	}
	c.Values = vals[:len(kept)]
	c.IDs.Keep(kept)
	if len(kept) == 0 && !c.End {
		c.Release()
		return nil
	}
	return out.Push(ctx, c)
}

// gather moves vals[kept[j]] to vals[j], checking that kept increases
// within range.
func gather[T any](vals []T, kept []uint32) error {
	if len(kept) > len(vals) {
		return fmt.Errorf("operators: filter-chunks kept %d positions of %d values", len(kept), len(vals))
	}
	prev := -1
	for j, k := range kept {
		if int(k) <= prev || int(k) >= len(vals) {
			return fmt.Errorf("operators: filter-chunks kept position %d after %d, of %d values", k, prev, len(vals))
		}
		prev = int(k)
		vals[j] = vals[k]
	}
	return nil
}
