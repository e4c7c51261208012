package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
)

// Prefetch returns a stage that keeps up to n chunks ready ahead of what
// follows it, so that the work upstream overlaps the work downstream: the
// stages before it run on their own goroutine and fill a queue of n
// chunks while the stages after it, and the sink, consume. Without it, a
// serial pipeline does one then the other, and their times add up; with
// it, the slower side sets the pace. Items pass unchanged.
//
// Memory grows by up to n chunks. Prefetch is serial (it is one queue in
// front of one consumer); the stages before it may be parallel. Its queue
// is made when the run starts (1<<20 chunks take 128 MB before any is in
// it), so n is at most 1<<20; an n out of range is kept as the stage's
// error. It holds nothing that a resume needs: its
// checkpoint (flow.Checkpointer) is only where its output stands, which
// is where its input must restart, and what was in its queue is produced
// again. A run resumed from it counts on from that position, so that its
// own checkpoints resume too.
func Prefetch[T any](n int) flow.Stage {
	op := prefetchOp[T]{n: n}
	if n < 1 || n > maxPrefetch {
		op.err = fmt.Errorf("operators: Prefetch(%d): must be at least 1 and at most %d", n, maxPrefetch)
		op.n = 1
	}
	return flow.NewStage[T, T](op)
}

// maxPrefetch is the largest queue Prefetch makes.
const maxPrefetch = 1 << 20

type prefetchOp[T any] struct {
	n   int
	err error
}

func (p prefetchOp[T]) Info() flow.Info {
	return flow.Info{Name: "prefetch", Serial: "it is one queue in front of one consumer", Buffer: p.n, OneToOne: true}
}

// Err reports a bad size.
func (p prefetchOp[T]) Err() error { return p.err }

func (p prefetchOp[T]) NewProcessor(env flow.Env) flow.Processor[T, T] {
	if p.err != nil {
		return failed[T, T]{p.err}
	}
	s, err := resumeState[prefetchState]("prefetch", env)
	if err != nil {
		return failed[T, T]{err}
	}
	at := flow.Mark{Part: -1}
	if s != nil && s.At != nil {
		// The input restarts at the position the output had reached: the
		// rest of partition At.Part, its rows counted on from At.Row.
		at = *s.At
	}
	return &prefetchProc[T]{at: at}
}

type prefetchProc[T any] struct {
	passThrough[T]
	at flow.Mark // after the items pushed
}

func (p *prefetchProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	if c.Part != p.at.Part {
		p.at = flow.Mark{Part: c.Part}
	}
	p.at.Row += int64(c.Len())
	return out.Push(ctx, c)
}

// prefetchState is Prefetch's checkpoint: where its output stands, which
// is also its input mark. Checkpoints of earlier versions hold no At; a
// run resumed from one counts the rows of its first partition from the
// row it restarts at, as those versions did.
type prefetchState struct {
	At *flow.Mark `json:"at,omitempty"`
}

// Checkpoint reports that the input restarts where the output stands.
func (p *prefetchProc[T]) Checkpoint() (any, flow.Mark) {
	at := p.at
	return prefetchState{At: &at}, p.at
}
