package feistel

import (
	"math"
	"testing"
)

func TestBijection(t *testing.T) {
	sizes := []uint64{0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 255, 256, 257, 1000, 4097, 65536, 100003}
	for _, n := range sizes {
		for key := range uint64(3) {
			p := New(n, key)
			seen := make([]bool, n)
			fixed := 0
			for i := range n {
				x := p.At(i)
				if x >= n || seen[x] {
					t.Fatalf("n=%d key=%d: At(%d) = %d is out of range or repeats", n, key, i, x)
				}
				seen[x] = true
				if x == i {
					fixed++
				}
			}
			// A random permutation has one fixed point on average.
			if n >= 1000 && fixed > 12 {
				t.Errorf("n=%d key=%d: %d fixed points", n, key, fixed)
			}
		}
	}
}

func TestKeysDiffer(t *testing.T) {
	const n = 1000
	a, b := New(n, 1), New(n, 2)
	same := 0
	for i := range uint64(n) {
		if a.At(i) == b.At(i) {
			same++
		}
	}
	if same > 12 {
		t.Fatalf("keys 1 and 2 agree on %d of %d indexes", same, n)
	}
}

// Where index 0 lands, over many keys, is uniform on [0, n).
func TestUniformImage(t *testing.T) {
	const n, keys = 10, 20000
	counts := make([]int, n)
	for key := range uint64(keys) {
		counts[New(n, key).At(0)]++
	}
	sd := math.Sqrt(keys * 0.1 * 0.9)
	for v, c := range counts {
		if math.Abs(float64(c)-keys/n) > 5*sd {
			t.Errorf("index 0 went to %d %d times of %d", v, c, keys)
		}
	}
}

func BenchmarkAt(b *testing.B) {
	p := New(1_000_003, 7)
	var s uint64
	for i := range uint64(b.N) {
		s += p.At(i % 1_000_003)
	}
	_ = s
}
