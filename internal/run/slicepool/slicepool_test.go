package slicepool_test

import (
	"testing"
	"unsafe"

	"github.com/rowflow/rowflow/internal/run/slicepool"
)

func TestAllocRecycleDoesNotAllocate(t *testing.T) {
	slicepool.Recycle(slicepool.Alloc[int64](1024)[:1024])
	n := testing.AllocsPerRun(1000, func() {
		s := slicepool.Alloc[int64](1024)
		slicepool.Recycle(s[:1024])
	})
	if n != 0 {
		t.Fatalf("Alloc+Recycle: %v allocations per call, want 0", n)
	}
}

// Alloc gives at least the capacity asked for, and at most twice it: new
// buffers are made in powers of two, so that a chunk's buffer comes back
// to the class it is asked from.
func TestAllocCapacity(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 511, 512, 513, 1000, 1024, 1025, 4097} {
		for range 3 { // new, then recycled
			s := slicepool.Alloc[int64](n)
			if len(s) != 0 || cap(s) < n || cap(s) > 2*n {
				t.Fatalf("Alloc(%d): len %d, cap %d; want 0 and [%d, %d]", n, len(s), cap(s), n, 2*n)
			}
			slicepool.Recycle(s)
		}
	}
	if s := slicepool.Alloc[int64](0); len(s) != 0 {
		t.Fatalf("Alloc(0): len %d", len(s))
	}
	if s := slicepool.Alloc[struct{}](5); cap(s) < 5 {
		t.Fatalf("Alloc of a zero-size type: cap %d, want at least 5", cap(s))
	}
	slicepool.Recycle(make([]struct{}, 3))
}

// Recycled buffers of any capacity and offset come back as buffers whose
// whole capacity is theirs (the race detector's pointer checks see a
// slice past its array), and buffers of pointers come back cleared.
func TestRecycleAnyBuffer(t *testing.T) {
	backing := make([]*int, 1000)
	x := 7
	for i := range backing {
		backing[i] = &x
	}
	slicepool.Recycle(backing[3:700:700])   // capacity 697: class 512
	slicepool.Recycle(backing[700:702:702]) // capacity 2
	slicepool.Recycle(backing[999:])        // capacity 1
	slicepool.Recycle(make([]*int, 5))      // capacity 5: class 4
	for _, n := range []int{1, 2, 3, 4, 300, 512} {
		for range 4 {
			s := slicepool.Alloc[*int](n)
			s = s[:cap(s)]
			for i, p := range s {
				if p != nil {
					t.Fatalf("Alloc(%d)[%d] of a recycled buffer is %v, want nil", n, i, p)
				}
				s[i] = &x
			}
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(backing)))
			if at := uintptr(unsafe.Pointer(unsafe.SliceData(s))); at >= lo && at < lo+1000*unsafe.Sizeof(&x) {
				if end := (at-lo)/unsafe.Sizeof(&x) + uintptr(cap(s)); end > 1000 || (at-lo)/unsafe.Sizeof(&x) < 3 {
					t.Fatalf("Alloc(%d) gave elements %d to %d of a 1000-element array", n, end-uintptr(cap(s)), end)
				}
			}
		}
	}
}

// BenchmarkAllocRecycle measures one Alloc and Recycle pair of a chunk's
// buffer, as a stage makes per chunk.
func BenchmarkAllocRecycle(b *testing.B) {
	slicepool.Recycle(slicepool.Alloc[int64](1024)[:1024])
	for b.Loop() {
		s := slicepool.Alloc[int64](1024)
		slicepool.Recycle(s[:1024])
	}
}
