package flow

import (
	"context"
	"sync"
	"sync/atomic"
)

// An ordered group bounds, besides each partition's buffer, the chunks that
// wait in all partitions behind the one being merged: a worker takes a
// token from the group's budget for every chunk it sends for a partition
// that is not the merge's current one, and the merge hands the tokens of
// a partition back once it has drained it. The current partition needs no
// token, so it always makes progress and the merge can move on; the
// partitions behind it can together hold at most the budget. Memory then
// stays the same from the first partitions of a run to the last, however
// long the run.

// budgetChunks is the budget of chunks waiting behind the current
// partition: a full partition buffer per worker.
func budgetChunks(n int) int { return n * taskBuffer }

// budget is an ordered group's token pool and the merge's current task.
type budget struct {
	tokens chan struct{}
	head   atomic.Pointer[task]
	mu     sync.Mutex
	moved  chan struct{} // closed when head changes
}

func newBudget(n int) *budget {
	return &budget{tokens: make(chan struct{}, budgetChunks(n)), moved: make(chan struct{})}
}

// acquire waits until t may send one more chunk: it is the current task,
// or a token is free.
func (b *budget) acquire(ctx context.Context, t *task) error {
	for {
		if b.head.Load() == t {
			return nil
		}
		select { // a free token, without the lock and the select below
		case b.tokens <- struct{}{}:
			t.tokens.Add(1)
			return nil
		default:
		}
		b.mu.Lock()
		moved := b.moved
		b.mu.Unlock()
		if b.head.Load() == t {
			return nil
		}
		select {
		case b.tokens <- struct{}{}:
			t.tokens.Add(1)
			return nil
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// setHead makes t the current task and wakes the workers waiting for a
// token, so that t's worker proceeds without one.
func (b *budget) setHead(t *task) {
	b.head.Store(t)
	b.mu.Lock()
	close(b.moved)
	b.moved = make(chan struct{})
	b.mu.Unlock()
}

// release hands back the tokens of a task whose channel is drained and
// closed: its worker took them all before closing it.
func (b *budget) release(t *task) {
	for range t.tokens.Load() {
		<-b.tokens
	}
}
