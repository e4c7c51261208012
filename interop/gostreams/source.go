package gostreams

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/reugn/go-streams"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// From returns a rowflow source that reads the elements of out, a
// go-streams Source or Flow. Each element must be a T or a []T; values are
// grouped into partitions of sources.PartitionItems in arrival order (see the
// package documentation). An element that is a T is one value, even if it
// is a []T as well (a []any when T is any), and a nil element is the nil
// value of an interface type T; for any other T it is of the wrong type.
//
// A go-streams stream can be read once: the source's first run reads it,
// and a later run, or a second epoch of the same run, fails with an
// error. So [flow.Pipeline.Epochs] over this source, or a second run,
// needs a cache between them (operators.Cache): its first pass reads the
// stream, and later epochs and runs replay what it kept, with the same
// values, row IDs and partitions:
//
//	cached := operators.Cache[T](flow.From(gostreams.From[T](out)))
//	p := flow.From(cached).Epochs(2)
//
// A run that ends early (it fails, its context is cancelled, or its loop
// is left) returns at once, whatever the go-streams source does, and
// drains out in a goroutine of its own that returns when out is closed
// (see [OnStop]). With a bad option the source can never be read, and
// From drains out at once, in such a goroutine. A run that fails before it
// starts (an iterator of another type than T, a stage that does not fit)
// never reaches the source: rowflow calls nothing of it, so it leaves out
// as it is, and a later run can still read it. Such a source, like one
// never run, does not drain out; to let the go-streams goroutines return
// without a run, read out.Out() to its end or end the go-streams source.
func From[T any](out streams.Outlet, opts ...InputOption) flow.Source[T] {
	c, err := newConfig(opts, applyInput)
	return newInlet[T](out.Out(), c, err)
}

// newInlet returns the source reading ch with c, or, if err (a bad
// option) is not nil, one that fails with err and drains ch at once.
func newInlet[T any](ch <-chan any, c *config, err error) *inlet[T] {
	s := &inlet[T]{ch: ch, cfg: c, err: err}
	if err != nil {
		s.used.Store(true)
		go s.drain()
	}
	return s
}

// inlet is a rowflow source reading a channel of go-streams elements.
type inlet[T any] struct {
	ch      <-chan any
	cfg     *config
	err     error // a bad option
	used    atomic.Bool
	drained sync.Once
	closed  atomic.Bool // the channel was seen closed
}

// Err returns the error of a bad option.
func (s *inlet[T]) Err() error { return s.err }

// Info's settings are the partition size; the chunk size changes no item.
func (s *inlet[T]) Info() flow.Info {
	return flow.Info{Name: s.cfg.Name, Settings: fmt.Sprintf("partition=%d", s.cfg.PartitionItems)}
}

func (s *inlet[T]) Partitions(ctx context.Context, _ flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		if s.used.Swap(true) {
			yield(flow.Partition[T]{}, errors.New("gostreams: the go-streams stream was read already, by an earlier run or an earlier epoch of this one; it can be read once (cache it to read it again)"))
			return
		}
		flow.AtEnd(ctx, s.drain)
		r := reader[T]{s: s}
		for b := int64(0); ; b++ {
			first := r.row
			vals, err := r.fill(ctx)
			if err != nil {
				yield(flow.Partition[T]{}, err)
				return
			}
			if len(vals) == 0 {
				return
			}
			read := func(ctx context.Context, out flow.Emitter[T]) error {
				return s.push(ctx, out, b, first, vals)
			}
			if !yield(flow.Partition[T]{Part: b, Read: read}, nil) {
				return
			}
		}
	}
}

// push pushes a partition's values in chunks.
func (s *inlet[T]) push(ctx context.Context, out flow.Emitter[T], b int64, first uint64, vals []T) error {
	n := s.cfg.ChunkSize
	for i := 0; i < len(vals); i += n {
		j := min(i+n, len(vals))
		buf := append(slicepool.Alloc[T](j-i), vals[i:j]...)
		c := flow.Chunk[T]{Part: b, Values: buf, IDs: flow.OrdinalIDs(s.cfg.Base, first+uint64(i), j-i), End: j == len(vals)}
		if err := out.Push(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// drain ends the go-streams stream feeding s if the run did not read it
// to its end: it calls the OnStop function, then starts a goroutine that
// reads until the channel is closed, so that the goroutines sending to it
// return. It does not wait for that goroutine: a run returns whatever the
// go-streams source does, and the goroutine returns when the source closes
// its channel (at once if OnStop ended it), or never, for a source that
// never closes.
func (s *inlet[T]) drain() {
	s.drained.Do(func() {
		if s.closed.Load() {
			return
		}
		if s.cfg.onStop != nil {
			s.cfg.onStop()
		}
		go func() {
			for range s.ch {
			}
			s.closed.Store(true)
		}()
	})
}

// reader reads the partitions of one run.
type reader[T any] struct {
	s     *inlet[T]
	row   uint64 // rows read so far
	carry []T    // the rest of a []T element that did not fit
}

// fill reads the next partition's values; none at the end of the stream.
func (r *reader[T]) fill(ctx context.Context) ([]T, error) {
	want := r.s.cfg.PartitionItems
	vals := make([]T, 0, want)
	for len(vals) < want {
		if len(r.carry) > 0 {
			k := min(want-len(vals), len(r.carry))
			vals, r.carry = append(vals, r.carry[:k]...), r.carry[k:]
			continue
		}
		if r.s.closed.Load() {
			break
		}
		var e any
		var ok bool
		select { // an element already waiting costs no select on ctx
		case e, ok = <-r.s.ch:
		default:
			select {
			case e, ok = <-r.s.ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if !ok {
			r.s.closed.Store(true)
			break
		}
		switch v := e.(type) {
		case T:
			vals = append(vals, v)
		case []T:
			r.carry = v
		case nil: // no T unless T is an interface type, whose nil it is
			if reflect.TypeFor[T]().Kind() != reflect.Interface {
				return nil, r.wrongType(len(vals), e)
			}
			var zero T
			vals = append(vals, zero)
		default:
			return nil, r.wrongType(len(vals), e)
		}
	}
	r.row += uint64(len(vals))
	return vals, nil
}

// wrongType is the error of an element e that is neither a T nor a []T,
// read after n values of the partition being filled.
func (r *reader[T]) wrongType(n int, e any) error {
	return fmt.Errorf("gostreams: source %q: the element after row %d is a %T, want %v or []%[4]v",
		r.s.cfg.Name, r.row+uint64(n), e, reflect.TypeFor[T]())
}
