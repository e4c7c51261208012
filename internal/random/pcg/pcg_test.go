package pcg

import "testing"

// The comparison with github.com/dgryski/go-pcgr, bit for bit, is in the
// module internal/random/pcg/pcgrcheck.

// TestAdvanceIsSkipping checks Advance against the stream itself: Advance(n)
// lands where n calls of Next do, and Advance(-n) undoes them.
func TestAdvanceIsSkipping(t *testing.T) {
	base := New(0x853c49e6748fea9b, 0xda3e39cb94b95bdb)
	var outs []uint32
	walk := base
	for range 5000 {
		outs = append(outs, walk.Next())
	}
	for _, n := range []int{0, 1, 2, 17, 1023, 1024, 4999} {
		r := base
		r.Advance(int64(n))
		if got := r.Next(); got != outs[n] {
			t.Fatalf("after Advance(%d): %#x, want output %d = %#x", n, got, n, outs[n])
		}
		r.Advance(-int64(n) - 1)
		if r != base {
			t.Fatalf("Advance(%d) after Advance(%d) and one output did not return to the start", -n-1, n)
		}
	}
}

// TestReferenceOutputs pins the first outputs of the PCG reference
// implementation's demo stream, pcg32_srandom(42, 54), as printed by its
// pcg32-demo: the generator is PCG32 itself, not only go-pcgr's version.
func TestReferenceOutputs(t *testing.T) {
	want := []uint32{0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e}
	r := New(42, 54)
	for i, w := range want {
		if got := r.Next(); got != w {
			t.Fatalf("output %d: %#x, want %#x", i, got, w)
		}
	}
}
