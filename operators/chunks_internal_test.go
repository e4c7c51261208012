package operators

import (
	"math/rand/v2"
	"testing"
)

// TestCheckKept compares checkKept with a plain loop over the steps on
// generated position lists: increasing ones, and ones with one step made
// equal, decreasing or out of range at every offset, which puts the bad
// step at every place within the four positions checkKept compares at
// once.
func TestCheckKept(t *testing.T) {
	valid := func(kept []uint32, n int) bool {
		prev := -1
		for _, k := range kept {
			if int(k) <= prev || int(k) >= n {
				return false
			}
			prev = int(k)
		}
		return len(kept) <= n
	}
	r := rand.New(rand.NewPCG(1, 2))
	cases := 0
	for n := range 40 {
		for range 20 {
			var kept []uint32
			for k := range n {
				if r.IntN(3) > 0 {
					kept = append(kept, uint32(k))
				}
			}
			lists := [][]uint32{kept}
			for i := range kept {
				for _, v := range []uint32{0, kept[i] - 1, uint32(n), 1 << 31, 1<<32 - 1} {
					bad := append([]uint32(nil), kept...)
					bad[i] = v
					lists = append(lists, bad)
				}
				if i > 0 {
					dup := append([]uint32(nil), kept...)
					dup[i] = dup[i-1]
					lists = append(lists, dup)
				}
			}
			for _, l := range lists {
				cases++
				if got, want := checkKept(l, n) == nil, valid(l, n); got != want {
					t.Fatalf("checkKept(%v, %d) passes %v, want %v", l, n, got, want)
				}
			}
		}
	}
	if cases < 10000 {
		t.Fatalf("only %d cases", cases)
	}
}

// BenchmarkCheckKept checks the positions of every other value of a
// 1024-value chunk, as a filter keeping half its rows gives.
func BenchmarkCheckKept(b *testing.B) {
	kept := make([]uint32, 512)
	for i := range kept {
		kept[i] = uint32(2 * i)
	}
	for b.Loop() {
		if err := checkKept(kept, 1024); err != nil {
			b.Fatal(err)
		}
	}
}
