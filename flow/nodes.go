package flow

import (
	"context"
	"iter"
	"slices"

	"github.com/rowflow/rowflow/internal/run/epoch"
)

// The pipeline plan is untyped so that the DSL can chain stages of any
// types; each node keeps its stage's types inside and builds typed links.
// Type assertions happen once per run, when links are built, never per
// element.

type opNode interface {
	info() Info
	buildErr() error
	inOps() typeOps
	outOps() typeOps
	// link returns a downstream of the input type that runs a new
	// processor and pushes into next, a downstream of the output type.
	link(env Env, next any) any
}

type srcNode interface {
	info() Info
	outOps() typeOps
	partitions(ctx context.Context, env Env) iter.Seq2[srcPart, error]
	// counter returns the source as a RowCounter, or nil.
	counter() RowCounter
	// keepsState reports whether the source keeps state across its
	// partitions (Info.Serial), which a checkpoint records.
	keepsState() bool
	// locator returns the source as a RowLocator, or nil.
	locator() RowLocator
	// dataFingerprinter returns the source as a DataFingerprinter, or nil.
	dataFingerprinter() DataFingerprinter
}

// srcPart is a source partition with a read function that takes a
// downstream of the source's type.
type srcPart struct {
	batch int64
	read  func(ctx context.Context, head any) error
}

type sinkNode interface {
	info() Info
	buildErr() error
	inOps() typeOps
	open(env Env) (head any, closeFn func(error) error)
	continuer() continuer
}

// continuer is a sink stage that records its progress (see SinkStage).
type continuer interface {
	Continuation(env Env) (ck Checkpoint, ok bool, err error)
}

// buildErr returns the error a source, operator or sink kept while it was
// built (a bad option or argument), if it has a method Err() error.
func buildErr(v any) error {
	if e, ok := v.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// Stage is an operator ready to be chained with [Pipeline.Via]. Make one
// with [NewStage].
type Stage struct{ n opNode }

// NewStage wraps op for the DSL.
func NewStage[In, Out any](op Operator[In, Out]) Stage {
	return Stage{n: opAdapter[In, Out]{op}}
}

type opAdapter[In, Out any] struct{ op Operator[In, Out] }

func (a opAdapter[In, Out]) info() Info      { return a.op.Info() }
func (a opAdapter[In, Out]) buildErr() error { return buildErr(a.op) }
func (a opAdapter[In, Out]) inOps() typeOps  { return opsOf[In]() }
func (a opAdapter[In, Out]) outOps() typeOps { return opsOf[Out]() }
func (a opAdapter[In, Out]) link(env Env, next any) any {
	var st *stageState
	if env.ck != nil {
		if st = env.ck.states[env.Position]; st != nil {
			env.Resume = st.State
		}
	}
	l := &link[In, Out]{name: a.op.Info().Name, p: a.op.NewProcessor(env), next: next.(downstream[Out])}
	if rc := env.ck; rc != nil {
		if st != nil && st.In != streamStart {
			k := slices.IndexFunc(rc.resume.stages, func(s stageState) bool { return s.Position == env.Position })
			l.drop = newDropper(st.In, rc.resume.stages, k)
		}
		if rc.tracker != nil && a.op.Info().Serial != "" {
			l.hist, l.tr = rc.tracker.register(env.Position, l.name, l.p, st), rc.tracker
		}
	}
	if rs := env.obs; rs != nil {
		l.m = newMeter(rs, rs.stages[env.Position].newSlot(), next)
	}
	return l
}

// Sink is a sink ready for [Pipeline.To]. Make one with [NewSink].
type Sink struct{ n sinkNode }

// NewSink wraps s for the DSL.
func NewSink[T any](s SinkStage[T]) Sink { return Sink{n: sinkAdapter[T]{s}} }

type sinkAdapter[T any] struct{ s SinkStage[T] }

func (a sinkAdapter[T]) info() Info     { return a.s.Info() }
func (a sinkAdapter[T]) inOps() typeOps { return opsOf[T]() }

func (a sinkAdapter[T]) buildErr() error { return buildErr(a.s) }

func (a sinkAdapter[T]) continuer() continuer {
	c, _ := a.s.(continuer)
	return c
}
func (a sinkAdapter[T]) open(env Env) (any, func(error) error) {
	c := a.s.NewConsumer(env)
	s := &sinkLink[T]{name: a.s.Info().Name, c: c, drop: env.ck.consumerDrop(), tr: env.ck.consumerTracker()}
	if rs := env.obs; rs != nil {
		s.m = newMeter(rs, rs.sink().newSlot(), nil)
	}
	return s, c.Close
}

type srcAdapter[T any] struct{ s Source[T] }

func (a srcAdapter[T]) info() Info      { return a.s.Info() }
func (a srcAdapter[T]) outOps() typeOps { return opsOf[T]() }

func (a srcAdapter[T]) keepsState() bool { return a.s.Info().Serial != "" }

func (a srcAdapter[T]) counter() RowCounter {
	rc, _ := a.s.(RowCounter)
	return rc
}

func (a srcAdapter[T]) locator() RowLocator {
	l, _ := a.s.(RowLocator)
	return l
}

func (a srcAdapter[T]) dataFingerprinter() DataFingerprinter {
	d, _ := a.s.(DataFingerprinter)
	return d
}

// partitions yields the source's partitions, attributing the source's own
// errors to the source. In a followed run, the tracker keeps the state of
// a source that keeps state at each partition's start (Partition.State).
func (a srcAdapter[T]) partitions(ctx context.Context, env Env) iter.Seq2[srcPart, error] {
	info := a.s.Info()
	name := info.Name
	hi := epoch.Part(env.Epoch, 0) // see Pipeline.Epochs
	var tr *Tracker
	if rc := env.ck; rc != nil && rc.tracker != nil {
		tr, env.Followed = rc.tracker, true
	}
	return func(yield func(srcPart, error) bool) {
		var h *history
		if tr != nil && info.Serial != "" {
			h = tr.registerSource(name)
		}
		for p, err := range a.s.Partitions(ctx, env) {
			if err != nil {
				yield(srcPart{}, stageError(name, 0, false, err))
				return
			}
			if h != nil && p.State != nil {
				tr.sourceAt(h, p.Part|hi, p.State)
			}
			if env.Epoch > 0 {
				if err := checkEpochPart(name, env.Epoch, p.Part); err != nil {
					yield(srcPart{}, err)
					return
				}
			}
			read := func(ctx context.Context, head any) (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = stageError(name, p.Part, true, recovered(r))
					}
				}()
				out := &recordingOut[T]{next: head.(downstream[T]), hi: hi}
				if rs := env.obs; rs != nil {
					out.m = rs.sourceMeter(head)
					out.m.begin(p.Part | hi)
					defer out.m.exit()
				}
				err = p.Read(ctx, out)
				switch {
				case err == nil || out.from(err):
					return err
				case err == ErrStop:
					err = errSourceStop
				}
				return stageError(name, p.Part, true, err)
			}
			if !yield(srcPart{p.Part | hi, read}, nil) {
				return
			}
		}
	}
}

// recordingOut remembers the last error downstream returned, so that it is
// passed on as it is rather than attributed to the stage that pushed.
type recordingOut[T any] struct {
	lastPush
	next downstream[T]
	hi   int64 // the epoch's bits of the partition numbers
	m    *meter
}

// Push checks ctx before every chunk: in a fused chain with no channel
// between source and sink, that is what notices cancellation.
func (o *recordingOut[T]) Push(ctx context.Context, c Chunk[T]) error {
	if err := ctx.Err(); err != nil {
		c.Release()
		return o.record(err)
	}
	c.Part |= o.hi
	if m := o.m; m != nil {
		return o.record(m.push(c.Len(), func() error { return o.next.Push(ctx, c) }))
	}
	return o.record(o.next.Push(ctx, c))
}
