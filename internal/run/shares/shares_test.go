package shares

import "testing"

// TestSpans: the ranks' spans cover the rows once, in order when merged
// by partition number, with shares that differ by at most one row and
// partition numbers unique across ranks.
func TestSpans(t *testing.T) {
	for _, c := range []struct{ n, size int64 }{{0, 5}, {1, 5}, {17, 5}, {100, 7}, {1000, 1000}} {
		for world := 1; world <= 6; world++ {
			covered := make([]int, c.n)
			parts := map[int64]bool{}
			var lo, hi int64 = c.n, 0
			for rank := range world {
				var rows int64
				for sp := range Spans(c.n, c.size, rank, world) {
					if parts[sp.Part] || sp.Lo/c.size != sp.Part-int64(rank) || sp.Hi <= sp.Lo {
						t.Fatalf("n %d, size %d, rank %d of %d: span %+v", c.n, c.size, rank, world, sp)
					}
					parts[sp.Part] = true
					for i := sp.Lo; i < sp.Hi; i++ {
						covered[i]++
					}
					rows += sp.Hi - sp.Lo
				}
				lo, hi = min(lo, rows), max(hi, rows)
			}
			for i, k := range covered {
				if k != 1 {
					t.Fatalf("n %d, size %d, world %d: row %d read %d times", c.n, c.size, world, i, k)
				}
			}
			if c.n > 0 && hi-lo > 1 {
				t.Fatalf("n %d, world %d: shares from %d to %d rows", c.n, world, lo, hi)
			}
		}
	}
}
