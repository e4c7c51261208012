package pcgrcheck

import (
	"math/rand/v2"
	"testing"

	pcgr "github.com/dgryski/go-pcgr"
	"github.com/rowflow/rowflow/internal/random/pcg"
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
		got, want := pcg.New(s[0], s[1]), pcgr.New(int64(s[0]), int64(s[1]))
		for i := range 1000 {
			if a, b := got.Next(), want.Next(); a != b {
				t.Fatalf("New(%#x, %#x): output %d is %#x, go-pcgr gives %#x", s[0], s[1], i, a, b)
			}
		}
	}
}

// TestAdvanceMatchesGoPCGR checks Advance, forward and back, against
// go-pcgr's, interleaved with outputs.
func TestAdvanceMatchesGoPCGR(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	deltas := []int64{0, 1, 2, 3, 63, 64, 1 << 32, 1<<63 - 1, -1, -2, -1000, -1 << 63}
	for _, s := range seeds() {
		got, want := pcg.New(s[0], s[1]), pcgr.New(int64(s[0]), int64(s[1]))
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
