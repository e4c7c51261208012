package operators

import (
	"context"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
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
// and the partition; f does not say which row failed. Like Map, MapChunks
// may run on several workers, where f is called concurrently.
func MapChunks[In, Out any](f func(in []In, out []Out) error) flow.Stage {
	return flow.NewStage[In, Out](mapChunksOp[In, Out]{f: f})
}

type mapChunksOp[In, Out any] struct{ f func([]In, []Out) error }

func (mapChunksOp[In, Out]) Info() flow.Info { return flow.Info{Name: "map-chunks", OneToOne: true} }

// Err reports a nil function.
func (m mapChunksOp[In, Out]) Err() error { return nilFunc("MapChunks", m.f == nil) }

func (m mapChunksOp[In, Out]) NewProcessor(flow.Env) flow.Processor[In, Out] {
	return &mapChunksProc[In, Out]{f: m.f, inPlace: reflect.TypeFor[In]() == reflect.TypeFor[Out]()}
}

type mapChunksProc[In, Out any] struct {
	f       func([]In, []Out) error
	inPlace bool
	passThrough[Out]
}

func (p *mapChunksProc[In, Out]) Process(ctx context.Context, c flow.Chunk[In], out flow.Emitter[Out]) error {
	dst := outBuffer[In, Out](c.Values, p.inPlace)
	if err := p.f(c.Values, dst); err != nil {
		if !p.inPlace {
			slicepool.Recycle(dst)
		}
		c.Release()
		return err
	}
	if !p.inPlace {
		slicepool.Recycle(c.Values)
	}
	return out.Push(ctx, flow.Chunk[Out]{Part: c.Part, IDs: c.IDs, Values: dst, End: c.End})
}

// FilterChunks returns a stage that filters a whole chunk of values with
// one call: f(vals, kept) appends to kept, in increasing order, the
// positions in vals of the values to keep, and returns the extended
// slice. kept is empty and has room for len(vals) positions. The kept
// values stay in order, with their IDs, as with [Filter]. f must not
// modify vals, and must not keep either slice after it returns. The
// stage takes the slice f returns as its own only if it is the kept it
// was given, extended in place; positions returned in any other slice are
// copied into kept, and that slice stays f's.
//
// A position out of range or out of order fails the run. An error from f
// fails the run naming the stage and the partition. Like Filter, FilterChunks
// may run on several workers, where f is called concurrently.
func FilterChunks[T any](f func(vals []T, kept []uint32) ([]uint32, error)) flow.Stage {
	return flow.NewStage[T, T](filterChunksOp[T]{f: f})
}

type filterChunksOp[T any] struct {
	f func([]T, []uint32) ([]uint32, error)
}

func (filterChunksOp[T]) Info() flow.Info { return flow.Info{Name: "filter-chunks"} }

// Err reports a nil function.
func (f filterChunksOp[T]) Err() error { return nilFunc("FilterChunks", f.f == nil) }

func (m filterChunksOp[T]) NewProcessor(flow.Env) flow.Processor[T, T] {
	return &filterChunksProc[T]{f: m.f}
}

type filterChunksProc[T any] struct {
	f func([]T, []uint32) ([]uint32, error)
	passThrough[T]
}

func (p *filterChunksProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	vals := c.Values
	given := slicepool.Alloc[uint32](len(vals))
	kept, err := p.f(vals, given)
	kept = adoptKept(given, kept)
	if err == nil {
		err = gather(vals, kept)
	}
	if err != nil {
		slicepool.Recycle(kept)
		c.Release()
		return err
	}
	return pushKept(ctx, c, kept, out)
}

// adoptKept returns the positions kept as a slice the stage owns: kept
// itself if it is given extended in place, else a copy in given. A
// user's slice must not reach the buffer pools, where another chunk
// would write into memory the user still holds.
func adoptKept(given, kept []uint32) []uint32 {
	if len(kept) == 0 {
		return given[:0]
	}
	if unsafe.SliceData(kept) == unsafe.SliceData(given) && len(kept) <= cap(given) {
		return kept
	}
	return append(given[:0], kept...)
}

// outBuffer returns the slice a chunk-level map writes its images of in
// to: in itself when In is Out, else a recycled buffer of len(in).
func outBuffer[In, Out any](in []In, inPlace bool) []Out {
	if inPlace {
		return *(*[]Out)(unsafe.Pointer(&in))
	}
	return slicepool.Alloc[Out](len(in))[:len(in)]
}

// pushKept pushes c cut to its first len(kept) values, whose positions
// before the cut kept gives, with their IDs. A chunk left empty is
// dropped unless it ends its partition.
func pushKept[T any](ctx context.Context, c flow.Chunk[T], kept []uint32, out flow.Emitter[T]) error {
	c.Values = c.Values[:len(kept)]
	c.IDs.Keep(kept)
	if len(kept) == 0 && !c.End {
		c.Release()
		return nil
	}
	return out.Push(ctx, c)
}

// gather moves vals[kept[j]] to vals[j] once checkKept has passed kept.
func gather[T any](vals []T, kept []uint32) error {
	if err := checkKept(kept, len(vals)); err != nil {
		return err
	}
	for j, k := range kept {
		vals[j] = vals[k]
	}
	return nil
}

// FilterMapChunks returns a stage that maps and filters a whole chunk of
// values with one call, the way a batched map may drop rows in other
// loaders (Hugging Face's map(batched=True), Ray Data's map_batches):
// for each value of in it keeps, in order, f writes the value's image to
// the front of out and appends the value's position in in to kept, and
// returns the extended kept; out[j] is then the image of in[kept[j]].
// out has the length of in; kept is empty and has room for len(in)
// positions. Each kept value keeps its row ID, as with [Filter]. As with
// [FilterChunks], positions returned in a slice other than the kept it
// was given are copied into kept, and that slice stays f's.
//
// When In and Out are the same type, out is in itself and f compacts in
// place: an element-wise loop that reads in[k] before it writes out[j],
// j ≤ k, does. Otherwise out is a recycled buffer whose old contents f
// must not read. No slice may be kept after f returns.
//
// It does in one pass over a chunk what [MapChunks] followed by
// [FilterChunks] does in three (the map, the test, and the move of the
// kept values to the front), as a hand-written chunk loop would. A
// position out of range or out of order fails the run, as does an error
// from f, naming the stage and the partition. It may run on several workers,
// where f is called concurrently.
func FilterMapChunks[In, Out any](f func(in []In, out []Out, kept []uint32) ([]uint32, error)) flow.Stage {
	return flow.NewStage[In, Out](filterMapChunksOp[In, Out]{f: f})
}

type filterMapChunksOp[In, Out any] struct {
	f func([]In, []Out, []uint32) ([]uint32, error)
}

func (filterMapChunksOp[In, Out]) Info() flow.Info { return flow.Info{Name: "filter-map-chunks"} }

// Err reports a nil function.
func (m filterMapChunksOp[In, Out]) Err() error { return nilFunc("FilterMapChunks", m.f == nil) }

func (m filterMapChunksOp[In, Out]) NewProcessor(flow.Env) flow.Processor[In, Out] {
	return &filterMapChunksProc[In, Out]{f: m.f, inPlace: reflect.TypeFor[In]() == reflect.TypeFor[Out]()}
}

type filterMapChunksProc[In, Out any] struct {
	f       func([]In, []Out, []uint32) ([]uint32, error)
	inPlace bool
	passThrough[Out]
}

func (p *filterMapChunksProc[In, Out]) Process(ctx context.Context, c flow.Chunk[In], out flow.Emitter[Out]) error {
	n := len(c.Values)
	dst := outBuffer[In, Out](c.Values, p.inPlace)
	given := slicepool.Alloc[uint32](n)
	kept, err := p.f(c.Values, dst, given)
	kept = adoptKept(given, kept)
	if err == nil {
		err = checkKept(kept, n)
	}
	if !p.inPlace {
		slicepool.Recycle(c.Values)
	}
	oc := flow.Chunk[Out]{Part: c.Part, IDs: c.IDs, Values: dst, End: c.End}
	if err != nil {
		slicepool.Recycle(kept)
		oc.Release()
		return err
	}
	return pushKept(ctx, oc, kept, out)
}

// checkKept checks that kept increases within [0, n), for both chunk
// filters; the stage error that wraps a failure names the stage. It
// checks four positions per loop iteration, which made it about twice as
// fast as one at a time in a microbenchmark (BenchmarkCheckKept; a form
// without branches, ORing the steps, was a third slower); a failure is
// worded by keptError.
func checkKept(kept []uint32, n int) error {
	if len(kept) > n {
		return fmt.Errorf("operators: kept %d positions of %d values", len(kept), n)
	}
	prev := int64(-1)
	i := 0
	for ; i+4 <= len(kept); i += 4 {
		s := kept[i : i+4 : i+4]
		a, b, c, d := int64(s[0]), int64(s[1]), int64(s[2]), int64(s[3])
		if a <= prev || b <= a || c <= b || d <= c {
			return keptError(kept, n)
		}
		prev = d
	}
	for _, k := range kept[i:] {
		if int64(k) <= prev {
			return keptError(kept, n)
		}
		prev = int64(k)
	}
	if prev >= int64(n) {
		return keptError(kept, n)
	}
	return nil
}

// keptError describes the first position of kept out of order or out of
// range.
func keptError(kept []uint32, n int) error {
	prev := -1
	for _, k := range kept {
		switch {
		case int(k) <= prev:
			return fmt.Errorf("operators: kept position %d after %d", k, prev)
		case int(k) >= n:
			return fmt.Errorf("operators: kept position %d, of %d values", k, n)
		}
		prev = int(k)
	}
	return fmt.Errorf("operators: kept positions %v of %d values", kept, n)
}
