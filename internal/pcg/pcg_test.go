package pcg

import (
	"math/rand/v2"
	"testing"

	pcgr "github.com/dgryski/go-pcgr"
)

// seeds are (state, sequence) pairs: edges of both ranges and random ones.
func seeds() [][2]uint64 {
	out := [][2]uint64{{0, 0}, {1, 1}, {^uint64(0), ^uint64(0)}, {1 << 63, 1 << 62}, {42, 54}}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		out = append(out, [2]uint64{r.Uint64(), r.Uint64()})
	}
	return out
}

// TestMatchesGoPCGR checks New and Next against go-pcgr bit for bit.
func TestMatchesGoPCGR(t *testing.T) {
	for _, s := range seeds() {
		got, want := New(s[0], s[1]), pcgr.New(int64(s[0]), int64(s[1]))
		for i := range 1000 {
			if a, b := got.Next(), want.Next(); a != b {
				t.Fatalf("New(%#x, %#x): output %d is %#x, go-pcgr gives %#x", s[0], s[1], i, a, b)
			}
		}
		if got.state != want.State || got.inc != want.Inc {
			t.Fatalf("New(%#x, %#x): state %#x/%#x, go-pcgr %#x/%#x", s[0], s[1], got.state, got.inc, want.State, want.Inc)
		}
	}
}

// TestAdvanceMatchesGoPCGR checks Advance, forward and back, against
// go-pcgr's, interleaved with outputs.
func TestAdvanceMatchesGoPCGR(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	deltas := []int64{0, 1, 2, 3, 63, 64, 1 << 32, 1<<63 - 1, -1, -2, -1000, -1 << 63}
	for _, s := range seeds() {
		got, want := New(s[0], s[1]), pcgr.New(int64(s[0]), int64(s[1]))
		for i, d := range append(deltas, r.Int64(), -r.Int64(), r.Int64N(1<<20)) {
			got.Advance(d)
			want.Advance(int(d))
			for k := range 3 {
				if a, b := got.Next(), want.Next(); a != b {
					t.Fatalf("New(%#x, %#x), advance %d (%d): output %d is %#x, go-pcgr gives %#x", s[0], s[1], i, d, k, a, b)
				}
			}
		}
	}
}

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
