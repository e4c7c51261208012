package gostreams

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/reugn/go-streams"
	gsflow "github.com/reugn/go-streams/flow"

	"github.com/rowflow/rowflow/flow"
)

// Source serves a rowflow pipeline as a go-streams Source. Make one with
// [NewSource].
type Source[T any] struct {
	out  chan any
	done chan struct{}
	err  error
}

var _ streams.Source = (*Source[int])(nil)

// NewSource starts a run of p, which must have no sink and produce
// values of type T, and returns it as a go-streams Source: every value is
// an element of type T, or with [Chunked] every chunk an element of type
// []T, in the pipeline's serial order. The output is closed when the run
// ends; [Source.Err] then says why. Cancel ctx to end the run early, for
// instance when the go-streams consumer stops reading. A nil option or a
// nil p is an error that Err returns, not a panic.
func NewSource[T any](ctx context.Context, p *flow.Pipeline, opts ...OutputOption) *Source[T] {
	s := &Source[T]{out: make(chan any, chanBuffer), done: make(chan struct{})}
	c, err := newConfig(opts, applyFlow[OutputOption])
	if err == nil && p == nil {
		err = errors.New("gostreams: NewSource of a nil pipeline")
	}
	go func() {
		defer close(s.done)
		defer close(s.out)
		if err != nil {
			s.err = err
			return
		}
		s.err = emit[T](ctx, p, c.chunked, s.out)
	}()
	return s
}

// emit runs p and sends its values, or chunks, to out.
func emit[T any](ctx context.Context, p *flow.Pipeline, chunked bool, out chan<- any) error {
	for c, err := range flow.Chunks[T](ctx, p) {
		if err != nil {
			return err
		}
		if chunked {
			if len(c.Values) > 0 {
				if err := send(ctx, out, any(c.Values)); err != nil {
					return err
				}
			}
			continue
		}
		for _, v := range c.Values {
			if err := send(ctx, out, any(v)); err != nil {
				return err
			}
		}
		c.Release()
	}
	return nil
}

func send(ctx context.Context, out chan<- any, v any) error {
	select { // a receiver already waiting costs no select on ctx
	case out <- v:
		return nil
	default:
	}
	select {
	case out <- v:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Out returns the output channel.
func (s *Source[T]) Out() <-chan any { return s.out }

// Via streams the output to f and returns f.
func (s *Source[T]) Via(f streams.Flow) streams.Flow {
	gsflow.DoStream(s, f)
	return f
}

// Err waits for the run to end and returns its error: nil if the stream
// ended normally.
func (s *Source[T]) Err() error {
	<-s.done
	return s.err
}

// Flow runs rowflow stages as a go-streams Flow. Make one with
// [NewFlow].
type Flow[In, Out any] struct {
	in chan any
	Source[Out]
}

var _ streams.Flow = (*Flow[int, int])(nil)

// NewFlow returns a go-streams Flow whose elements, of type In or []In,
// go through the stages that build appends to a rowflow pipeline reading
// them (see [From]), and come out as elements of type Out (or []Out with
// [Chunked]) in serial order. The run starts now and ends when the input
// is closed and drained through the stages, when a stage fails, or when
// ctx is cancelled; its Err ([Source.Err]) then says why, and the input is drained
// so that the go-streams stages before it finish. build runs in the
// run's goroutine: a nil build, a panic in it (a [*flow.PanicError]) or a
// nil pipeline from it is the run's error, and no element comes out. Its
// options are those of [From] for the input and [Chunked] for the output.
func NewFlow[In, Out any](ctx context.Context, build func(*flow.Pipeline) *flow.Pipeline, opts ...FlowOption) *Flow[In, Out] {
	f := &Flow[In, Out]{in: make(chan any, chanBuffer), Source: Source[Out]{out: make(chan any, chanBuffer), done: make(chan struct{})}}
	c, err := newConfig(opts, applyFlow[FlowOption])
	src := newInlet[In](f.in, c, err) // a bad option is the source's error
	go func() {
		defer close(f.done)
		defer close(f.out)
		defer src.drain()
		p, err := built(build, flow.From[In](src))
		if err == nil {
			err = emit[Out](ctx, p, c.chunked, f.out)
		}
		f.err = err
	}()
	return f
}

// built returns build(p). A nil build, a panic in it, or a nil pipeline
// is an error: build runs in the adapter's goroutine, where a panic would
// end the program.
func built(build func(*flow.Pipeline) *flow.Pipeline, p *flow.Pipeline) (q *flow.Pipeline, err error) {
	if build == nil {
		return nil, errors.New("gostreams: no function to build the pipeline (nil)")
	}
	defer func() {
		if r := recover(); r != nil {
			q, err = nil, fmt.Errorf("gostreams: the function building the pipeline panicked: %w", &flow.PanicError{Value: r, Stack: debug.Stack()})
		}
	}()
	if q = build(p); q == nil {
		return nil, errors.New("gostreams: the function building the pipeline returned nil")
	}
	return q, nil
}

// In returns the input channel.
func (f *Flow[In, Out]) In() chan<- any { return f.in }

// Via streams the output to next and returns next.
func (f *Flow[In, Out]) Via(next streams.Flow) streams.Flow {
	gsflow.DoStream(f, next)
	return next
}

// To streams the output to sink and waits until the sink has completed.
func (f *Flow[In, Out]) To(sink streams.Sink) {
	for v := range f.out {
		sink.In() <- v
	}
	close(sink.In())
	sink.AwaitCompletion()
}

// Sink ends a go-streams stream in a rowflow pipeline that ends in a sink.
// Make one with [NewSink].
type Sink[T any] struct {
	in   chan any
	done chan struct{}
	err  error
}

var _ streams.Sink = (*Sink[int])(nil)

// NewSink returns a go-streams Sink whose elements, of type T or []T, feed
// the pipeline that build makes from a rowflow pipeline reading them (see
// [From]); build must end it with To. The run starts now and ends when the
// input is closed and the pipeline's sink has committed, when it fails, or
// when ctx is cancelled; the input is then drained. As with [NewFlow], a
// nil build, a panic in it or a nil pipeline from it is the run's error.
func NewSink[T any](ctx context.Context, build func(*flow.Pipeline) *flow.Pipeline, opts ...InputOption) *Sink[T] {
	s := &Sink[T]{in: make(chan any, chanBuffer), done: make(chan struct{})}
	c, err := newConfig(opts, applyInput)
	src := newInlet[T](s.in, c, err)
	go func() {
		defer close(s.done)
		defer src.drain()
		p, err := built(build, flow.From[T](src))
		if err == nil {
			err = p.Run(ctx)
		}
		s.err = err
	}()
	return s
}

// In returns the input channel.
func (s *Sink[T]) In() chan<- any { return s.in }

// AwaitCompletion waits until the run has ended.
func (s *Sink[T]) AwaitCompletion() { <-s.done }

// Err waits until the run has ended and returns its error.
func (s *Sink[T]) Err() error {
	<-s.done
	return s.err
}

// chanBuffer is the capacity of the channels through which the adapters
// exchange elements with go-streams. go-streams' own stages pass each
// element over an unbuffered channel, a goroutine hand-off per element;
// a buffer lets the goroutine on either side send a run of elements
// without waiting, which halves the adapter's cost per element. Order is
// the channel's, so partitions and row IDs do not change.
const chanBuffer = 1024
