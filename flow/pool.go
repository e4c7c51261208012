package flow

import (
	"reflect"
	"sync"
)

// Buffers for chunk values are recycled through one sync.Pool per element
// type. Recycling matters: a pipeline moves millions of values through a
// handful of chunk-sized buffers instead of allocating one per chunk.
//
// The pools hold *[]T, not []T, so that putting a slice does not allocate
// an interface box; the emptied *[]T holders are themselves recycled.

var pools sync.Map // reflect.Type -> *slicePool

type slicePool struct {
	pool     sync.Pool // *[]T holding a buffer
	holders  sync.Pool // empty *[]T
	pointers bool      // clear recycled buffers so they do not keep values alive
}

func poolFor[T any]() *slicePool {
	t := reflect.TypeFor[T]()
	if p, ok := pools.Load(t); ok {
		return p.(*slicePool)
	}
	p, _ := pools.LoadOrStore(t, &slicePool{pointers: hasPointers(t)})
	return p.(*slicePool)
}

// Alloc returns an empty slice with capacity at least n, recycled from
// earlier chunks where possible. Pass it to [Recycle] when done with it.
func Alloc[T any](n int) []T {
	p := poolFor[T]()
	if h, ok := p.pool.Get().(*[]T); ok {
		s := *h
		*h = nil
		p.holders.Put(h)
		if cap(s) >= n {
			return s[:0]
		}
	}
	return make([]T, 0, n)
}

// Recycle hands s back for reuse by [Alloc]. The caller must not use s
// afterwards. Recycling a nil or empty-capacity slice does nothing.
func Recycle[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	p := poolFor[T]()
	if p.pointers {
		clear(s[:cap(s)])
	}
	h, ok := p.holders.Get().(*[]T)
	if !ok {
		h = new([]T)
	}
	*h = s[:0]
	p.pool.Put(h)
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
