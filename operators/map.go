package operators

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// Map returns a stage that replaces every value v by f(v). IDs and partition
// numbers pass through unchanged. An error from f fails the run.
func Map[In, Out any](f func(In) (Out, error)) flow.Stage {
	return flow.NewStage[In, Out](mapOp[In, Out]{f: f})
}

type mapOp[In, Out any] struct{ f func(In) (Out, error) }

func (mapOp[In, Out]) Info() flow.Info { return flow.Info{Name: "map", OneToOne: true} }

// Err reports a nil function.
func (m mapOp[In, Out]) Err() error { return nilFunc("Map", m.f == nil) }

func (m mapOp[In, Out]) NewProcessor(flow.Env) flow.Processor[In, Out] {
	return &mapProc[In, Out]{f: m.f, inPlace: reflect.TypeFor[In]() == reflect.TypeFor[Out]()}
}

type mapProc[In, Out any] struct {
	f       func(In) (Out, error)
	inPlace bool // In and Out are one type: write results over the input
	passThrough[Out]
}

func (p *mapProc[In, Out]) Process(ctx context.Context, c flow.Chunk[In], out flow.Emitter[Out]) (err error) {
	var dst []Out
	if p.inPlace {
		dst = *(*[]Out)(unsafe.Pointer(&c.Values))
	} else {
		dst = slicepool.Alloc[Out](len(c.Values))[:len(c.Values)]
	}
	k := 0
	defer guard(&c, &k, &err)
	f, src := p.f, c.Values
	dst = dst[:len(src)]
	for ; k < len(src); k++ {
		v, err := f(src[k])
		if err != nil {
			return flow.ErrorAt(&c, k, err)
		}
		dst[k] = v
	}
	if !p.inPlace {
		slicepool.Recycle(c.Values)
	}
	return out.Push(ctx, flow.Chunk[Out]{Part: c.Part, IDs: c.IDs, Values: dst, End: c.End})
}

// passThrough is the Flush of stages that hold nothing between chunks.
type passThrough[Out any] struct{}

func (passThrough[Out]) Flush(context.Context, flow.Emitter[Out]) error { return nil }

// nilFunc returns the build error of stage when it was given a nil
// function, and nil otherwise.
func nilFunc(stage string, isNil bool) error {
	if isNil {
		return fmt.Errorf("operators: %s: nil function", stage)
	}
	return nil
}

// guard turns a panic while handling the k-th value of c into an error
// naming that row.
func guard[T any](c *flow.Chunk[T], k *int, err *error) {
	if r := recover(); r != nil {
		*err = &flow.PanicError{Value: r, Stack: debug.Stack()}
		if *k >= 0 && *k < c.Len() {
			*err = flow.ErrorAt(c, *k, *err)
		}
	}
}
