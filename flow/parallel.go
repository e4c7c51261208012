package flow

import (
	"context"
	"sync"
	"sync/atomic"
)

// A parallel group runs a run of fused stages on n workers.
//
// Partitions are handed out in batch order as tasks. Each task carries its
// own bounded output channel; the ordered merge takes the tasks in the same
// order from the schedule and drains each task's channel before moving on,
// so it streams the lowest open partition as its chunks arrive. The
// schedule's capacity is the window of partitions in flight, each holding
// at most taskBuffer chunks, and at most the budget's weight of them
// (see room); behind the partition being merged, all of them together
// hold at most the group's budget (see budget.go).
//
// Unordered groups keep a partition's chunks together too, but the merge
// takes partitions in the order they become ready rather than in batch
// order: a worker announces its task when the task ends, or earlier when
// the task's channel is full, so a large partition cannot block its worker
// while the merge waits for an announcement.

const taskBuffer = 64 // chunks buffered per partition in flight

// task is one partition for a worker: read pushes the partition into the
// worker's chain (a downstream of the group's input type), and out (a chan
// Chunk of the group's output type) receives the chain's output.
type task struct {
	batch  int64
	read   func(ctx context.Context, head any) error
	out    any
	tokens atomic.Int64 // budget tokens its chunks hold (ordered groups)
	room   room         // the weight of the chunks in out

	// err is the error the partition failed with in its worker, set
	// before the End chunk that closes the task's channel: whoever takes
	// the task in partition order fails the run with it there, after
	// every partition before it, as the serial run fails.
	err error
}

// group is the shared state of one parallel group.
type group struct {
	n         int
	unordered bool
	tasks     chan *task
	schedule  chan *task // tasks in batch order (ordered) or as they become ready (unordered)
	in, out   typeOps
	chain     func(env Env, terminal any) any // builds one worker's chain
	env       Env
	budget    *budget // ordered groups only
	atOnce    bool    // failures upstream fail the run at once: several cursors read the group

	// Channels of partitions read to their End, for later partitions: a
	// channel of taskBuffer chunks (8 KB of chunks of int64s) costs more
	// to allocate and clear than a small partition's work.
	freeIn, freeOut chan any
}

func newGroup(n int, unordered bool, in, out typeOps, chain func(Env, any) any, env Env) *group {
	g := &group{n: n, unordered: unordered, in: in, out: out, chain: chain, env: env,
		tasks: make(chan *task, 2*n), schedule: make(chan *task, 3*n),
		freeIn: make(chan any, 8*n), freeOut: make(chan any, 8*n)}
	if !unordered {
		g.budget = newBudget(n)
	}
	return g
}

// inChan and outChan return an empty channel for a task's input (of the
// group's input type) or output, recycled where possible.
func (g *group) inChan() any  { return reuse(g.freeIn, g.in) }
func (g *group) outChan() any { return reuse(g.freeOut, g.out) }

func reuse(free chan any, ops typeOps) any {
	select {
	case ch := <-free:
		return ch
	default:
		return ops.newChan(taskBuffer)
	}
}

// recycleIn and recycleOut keep a task's channel, which its reader has
// read to the partition's End, for a later task.
func (g *group) recycleIn(ch any)  { keep(g.freeIn, ch) }
func (g *group) recycleOut(ch any) { keep(g.freeOut, ch) }

func keep(free chan any, ch any) {
	select {
	case free <- ch:
	default:
	}
}

// submit hands a task to the workers and, when ordered, to the merge.
func (g *group) submit(ctx context.Context, batch int64, read func(context.Context, any) error) error {
	t := &task{batch: batch, read: read, out: g.outChan(), room: newRoom(g.n)}
	if !g.unordered {
		if err := send(ctx, g.schedule, t); err != nil {
			return err
		}
	}
	return send(ctx, g.tasks, t)
}

// failsAtOnce reports whether a failure upstream of g fails the run at
// once rather than in band (see inBand): g is unordered, or several
// cursors read it.
func (g *group) failsAtOnce() bool { return g.unordered || g.atOnce }

// finish tells the workers and the merge that no more tasks come.
func (g *group) finish() {
	close(g.tasks)
	if !g.unordered {
		close(g.schedule)
	}
}

// announce hands an unordered group's task to the merge.
func (g *group) announce(ctx context.Context, t *task) error {
	return send(ctx, g.schedule, t)
}

// start starts the workers under upCtx and the merge under downCtx; the
// merge pushes into next (a downstream of the output type, whose chain
// ends in term) and cancels upstream with errStopped if next stops the
// stream or the merge hands a failure to term in band.
//
// If next is a cursor set's feed, the group has no merge: the set's
// cursors take the tasks from the schedule, in batch order, each draining
// the tasks it takes. With several cursors the group has no budget,
// since the partition that must make progress is not one but every
// partition a cursor holds; a single cursor is the merge and keeps it.
func (g *group) start(r *runner, upCtx, downCtx context.Context, stopUp context.CancelCauseFunc, next, term any) {
	if f, ok := next.(interface{ adopt(*group) }); ok {
		g.unordered = false
		f.adopt(g)
		g.startWorkers(r, upCtx)
		return
	}
	g.startWorkers(r, upCtx)
	r.goroutine(downCtx, func() error {
		return settle(downCtx, term, g.out.merge(downCtx, g, next), stopUp)
	})
}

// startWorkers starts the group's workers under upCtx.
func (g *group) startWorkers(r *runner, upCtx context.Context) {
	var workers sync.WaitGroup
	workers.Add(g.n)
	var failed atomic.Bool
	for range g.n {
		r.goroutine(upCtx, func() error {
			err := g.work(upCtx)
			if err != nil {
				failed.Store(true)
			}
			workers.Done()
			return err
		})
	}
	if g.unordered {
		// Every task has been announced once every worker is done. After a
		// failure the schedule stays open: the merge must not take the
		// stream for ended; it returns when the run is cancelled.
		r.goroutine(upCtx, func() error {
			workers.Wait()
			if !failed.Load() {
				close(g.schedule)
			}
			return nil
		})
	}
}

func (g *group) work(ctx context.Context) error {
	term := g.out.newTerminal(g)
	head := g.chain(g.env, term)
	m := meterOf(head)
	for {
		t, ok, err := recvMetered(ctx, g.tasks, m)
		if !ok {
			return err
		}
		term.setTask(t)
		if err := t.read(ctx, head); err != nil {
			if err == ErrStop {
				err = stageError("parallel worker", t.batch, true, errStopInParallel)
			}
			if ctx.Err() != nil || g.unordered {
				return err
			}
			// The run fails where the merge meets the partition. The
			// worker stops: every partition before this one has a
			// worker already, since tasks are taken in order.
			return term.failTask(ctx, err)
		}
		if err := term.endTask(ctx); err != nil {
			return err
		}
	}
}
