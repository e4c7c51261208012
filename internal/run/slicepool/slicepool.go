// Package slicepool recycles the buffers of chunk values through sync.Pools,
// one per element type and capacity class: the runtime, the sources and
// the operators allocate chunk buffers with Alloc and hand them back with
// Recycle (flow.Chunk.Release does).
package slicepool

import (
	"math/bits"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Buffers for chunk values are recycled through sync.Pools, one per
// element type and capacity class. Recycling matters: a pipeline moves
// millions of values through a handful of chunk-sized buffers instead of
// allocating one per chunk.
//
// Class k holds arrays of at least 1<<k elements, and Alloc makes new
// ones of exactly a power of two, so a chunk's buffer comes back to the
// class it is asked from. A pool holds a pointer to an array's first
// element: a pointer goes into an interface without being boxed, so
// neither Alloc nor Recycle allocates, and each is one pool operation.
//
// A stage calls Alloc and Recycle a few times per chunk, so the element
// type's pools are found without hashing: a small table indexed by the
// address of the type's descriptor caches them (see poolFor).

type slicePool struct {
	typ      reflect.Type
	classes  [bits.UintSize]sync.Pool // class k: *T, the first of at least 1<<k
	pointers bool                     // clear recycled buffers so they do not keep values alive
}

var (
	pools      sync.Map // reflect.Type -> *slicePool, the record of every type's pools
	poolsCache [64]atomic.Pointer[slicePool]
)

// poolFor returns T's pools: from the cache slot of T's descriptor if it
// holds them, else from pools, caching them in the slot.
func poolFor[T any]() *slicePool {
	t := reflect.TypeFor[T]()
	slot := &poolsCache[typeAddr(t)>>5%uintptr(len(poolsCache))]
	if p := slot.Load(); p != nil && p.typ == t {
		return p
	}
	v, ok := pools.Load(t)
	if !ok {
		v, _ = pools.LoadOrStore(t, &slicePool{typ: t, pointers: hasPointers(t)})
	}
	p := v.(*slicePool)
	slot.Store(p)
	return p
}

// typeAddr returns the address of the descriptor a reflect.Type holds:
// the data word of the interface, a pointer that identifies the type.
// reflect.ValueOf(t).UnsafePointer() gives the same, but made a pair of
// Alloc and Recycle take 43–56 ns instead of 34–36 (BenchmarkAllocRecycle).
func typeAddr(t reflect.Type) uintptr {
	return uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1])
}

// Alloc returns an empty slice with capacity at least n, recycled from
// earlier chunks where possible. Pass it to [Recycle] when done with it.
func Alloc[T any](n int) []T {
	if n <= 0 {
		return nil
	}
	k := bits.Len(uint(n - 1)) // the least k with 1<<k >= n
	if k >= bits.UintSize-1 || unsafe.Sizeof(*new(T)) == 0 {
		return make([]T, 0, n)
	}
	p := poolFor[T]()
	if first, ok := p.classes[k].Get().(*T); ok {
		return unsafe.Slice(first, 1<<k)[:0]
	}
	return make([]T, 0, 1<<k)
}

// Recycle hands s back for reuse by [Alloc]. The caller must not use s
// afterwards. Recycling a nil or empty-capacity slice does nothing.
func Recycle[T any](s []T) {
	if cap(s) == 0 || unsafe.Sizeof(*new(T)) == 0 {
		return
	}
	p := poolFor[T]()
	if p.pointers {
		clear(s[:cap(s)])
	}
	k := bits.Len(uint(cap(s))) - 1 // the greatest k with 1<<k <= cap(s)
	p.classes[k].Put(unsafe.SliceData(s[:1]))
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}
