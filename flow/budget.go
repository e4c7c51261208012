package flow

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
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

// budgetChunks is the budget of tokens behind the current partition: a
// full partition buffer per worker, of chunks of up to weightUnit bytes.
func budgetChunks(n int) int { return n * taskBuffer }

// weightUnit is the bytes of values one budget token stands for. A chunk
// of 1024 int64s, or of 1024 short strings, takes one token; a chunk of
// larger rows, such as token lists, takes a token per weightUnit bytes,
// so that the budget bounds the bytes waiting as well as the chunks.
const weightUnit = 32 << 10

// weigher returns the function that gives the tokens a chunk of T values
// takes: their bytes, counting what strings and slices of values point
// to, in weightUnits, at least one and at most half the smallest budget.
// Values of other types that hold pointers (structs with strings or
// slices, interfaces, such as records of boxed values and lists) are
// weighed by a sample: what up to weighSample of them, spread over the
// chunk, reach (see reach), times the chunk's length over the sample's.
// A weight only paces the workers; it never changes what a run gives.
func weigher[T any]() func([]T) int {
	t := reflect.TypeFor[T]()
	size := int(t.Size())
	switch {
	case t.Kind() == reflect.String:
		return func(vals []T) int {
			n := len(vals) * size
			for i := range vals {
				n += len(*(*string)(unsafe.Pointer(&vals[i])))
			}
			return tokensFor(n)
		}
	case t.Kind() == reflect.Slice && !hasPointers(t.Elem()):
		elem := int(t.Elem().Size())
		return func(vals []T) int {
			n := len(vals) * size
			for i := range vals {
				n += len(*(*[]byte)(unsafe.Pointer(&vals[i]))) * elem
			}
			return tokensFor(n)
		}
	case hasPointers(t):
		return func(vals []T) int {
			n := len(vals) * size
			if len(vals) == 0 {
				return tokensFor(n)
			}
			k := min(len(vals), weighSample)
			sampled := 0
			for s := range k {
				sampled += reach(reflect.ValueOf(&vals[s*len(vals)/k]).Elem(), weighDepth)
			}
			return tokensFor(n + sampled*len(vals)/k)
		}
	}
	return func(vals []T) int { return tokensFor(len(vals) * size) }
}

// weighSample is the number of values of a chunk that are weighed, and
// weighDepth how deep reach follows pointers.
const (
	weighSample = 8
	weighDepth  = 4
)

// reach returns the bytes that v points to, not counting v itself:
// string bytes, slice elements, what interfaces and pointers hold, down
// to depth levels of indirection. The elements of a long slice are
// weighed by a sample of weighSample of them.
func reach(v reflect.Value, depth int) int {
	if depth < 0 {
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Slice:
		n := v.Len()
		bytes := n * int(v.Type().Elem().Size())
		if n == 0 || !hasPointers(v.Type().Elem()) {
			return bytes
		}
		k := min(n, weighSample)
		sampled := 0
		for s := range k {
			sampled += reach(v.Index(s*n/k), depth-1)
		}
		return bytes + sampled*n/k
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int(e.Type().Size()) + reach(e, depth-1)
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += reach(v.Field(i), depth)
		}
		return n
	case reflect.Array:
		n := 0
		if hasPointers(v.Type().Elem()) {
			for i := range v.Len() {
				n += reach(v.Index(i), depth)
			}
		}
		return n
	}
	return 0
}

// hasPointers reports whether values of t hold pointers that reach can
// follow: strings, slices, interfaces or pointers, directly or in fields
// and array elements.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Slice, reflect.Interface, reflect.Pointer:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	}
	return false
}

// tokensFor returns the tokens for n bytes.
func tokensFor(n int) int {
	return min(max(1, (n+weightUnit-1)/weightUnit), budgetChunks(1)/2)
}

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

// acquire waits until t may send one more chunk of k tokens: it is the
// current task, or it holds k more tokens. A task waiting for the rest of
// its tokens keeps those it has: the current task needs none, so the
// merge always moves on, and a task hands all its tokens back once the
// merge has drained it.
func (b *budget) acquire(ctx context.Context, t *task, k int) error {
	for ; k > 0; k-- {
		if err := b.acquire1(ctx, t); err != nil {
			return err
		}
		if b.head.Load() == t {
			return nil
		}
	}
	return nil
}

// acquire1 is acquire of one token.
func (b *budget) acquire1(ctx context.Context, t *task) error {
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

// A room bounds the weight of the chunks in one partition's channel: a
// sender puts a chunk's tokens (see weigher) in before it sends the chunk,
// and the receiver takes them out when it receives it. A channel holds at
// most taskBuffer chunks, which with large rows (a chunk of 1024 token
// lists is some 150 KB) could hold tens of megabytes. Its room bounds them
// to the weight of the budget of a group of n workers as well: the budget
// bounds the partitions behind the current one, the room the current one
// and each channel into a worker. A room no larger than the budget does
// not hold back a partition that the budget lets run ahead (with a room
// of a single worker's budget, a second worker of two waited on it and a
// disk cache replayed 15% slower). A nil room bounds nothing.
type room chan struct{}

// newRoom returns the room of a channel of a group of n workers.
func newRoom(n int) room { return make(room, budgetChunks(n)) }

// put puts w tokens in r, waiting while r is full. Before it first
// waits it calls full, if not nil, as a sender does before it waits for a
// full channel.
func (r room) put(ctx context.Context, w int, full func(context.Context) error) error {
	if r == nil {
		return nil
	}
	for ; w > 0; w-- {
		select {
		case r <- struct{}{}:
			continue
		default:
		}
		if full != nil {
			if err := full(ctx); err != nil {
				return err
			}
		}
		if err := send(ctx, r, struct{}{}); err != nil {
			return err
		}
	}
	return nil
}

// take takes out the w tokens of a chunk received; its sender put them in
// before sending it, so take never waits.
func (r room) take(w int) {
	if r == nil {
		return
	}
	for range w {
		<-r
	}
}
