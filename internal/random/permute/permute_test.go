package permute

import (
	"fmt"
	"math"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil/longtest"
)

func TestBijection(t *testing.T) {
	sizes := []uint64{0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 255, 256, 257, 1000, 4097, 65536, 100003}
	if longtest.On() {
		sizes = append(sizes, TableMax+1) // New's swap-or-not over every index: seconds
	}
	for _, n := range sizes {
		keys := uint64(2)
		if n > TableMax {
			keys = 1
		}
		for key := range keys {
			checkBijection(t, New(n, key), fmt.Sprintf("n=%d key=%d", n, key))
			if n >= 2 && n <= 100003 {
				// The swap-or-not that New takes above TableMax, here
				// where every index is quick to check.
				checkBijection(t, swapOrNot(n, key), fmt.Sprintf("swap-or-not n=%d key=%d", n, key))
			}
		}
	}
}

func checkBijection(t *testing.T, p Perm, name string) {
	t.Helper()
	n := p.Len()
	seen := make([]bool, n)
	for i := range n {
		x := p.At(i)
		if x >= n || seen[x] {
			t.Fatalf("%s: At(%d) = %d is out of range or repeats", name, i, x)
		}
		seen[x] = true
	}
}

// chiSquare returns the chi-square statistic of counts against a uniform
// expectation.
func chiSquare(counts map[uint64]int, cells, total int) float64 {
	e := float64(total) / float64(cells)
	chi := 0.0
	for _, c := range counts {
		chi += (float64(c) - e) * (float64(c) - e) / e
	}
	chi += float64(cells-len(counts)) * e // cells never seen
	return chi
}

// chiLimit is the 0.1% upper point of the chi-square distribution with df
// degrees of freedom, by the Wilson–Hilferty approximation.
func chiLimit(df int) float64 {
	const z = 3.09 // the 0.999 quantile of the normal distribution
	d := float64(df)
	v := 1 - 2/(9*d) + z*math.Sqrt(2/(9*d))
	return d * v * v * v
}

// TestOrdersAreUniform: over many keys, every order of n = 3..8 indexes
// appears as often as the others, within sampling error (chi-square at
// the 0.1% level; the Feistel network this replaced gave 510 on 119
// degrees of freedom for n = 5, where the limit is 169).
func TestOrdersAreUniform(t *testing.T) {
	for n := uint64(3); n <= 8; n++ {
		cells := 1
		for k := 2; k <= int(n); k++ {
			cells *= k
		}
		keys := 20 * cells
		counts := map[uint64]int{}
		for key := range uint64(keys) {
			p := New(n, key)
			var code uint64
			for i := range n {
				code = code*n + p.At(i)
			}
			counts[code]++
		}
		if len(counts) != cells && cells <= keys/5 {
			t.Errorf("n=%d: %d of %d orders seen over %d keys", n, len(counts), cells, keys)
		}
		if chi, lim := chiSquare(counts, cells, keys), chiLimit(cells-1); chi > lim {
			t.Errorf("n=%d: chi-square %.0f on %d degrees of freedom, above %.0f", n, chi, cells-1, lim)
		}
	}
}

// TestPositionsAreUniform: at a size past the table, where index 0 and
// index n-1 land over many keys is uniform over 16 equal ranges, and the
// two land independently of each other (a 16×16 table).
func TestPositionsAreUniform(t *testing.T) {
	const n, keys, bins = TableMax + 777, 16_000, 16
	first, pairs := map[uint64]int{}, map[uint64]int{}
	for key := range uint64(keys) {
		p := New(n, key)
		a, b := p.At(0)*bins/n, p.At(n-1)*bins/n
		first[a]++
		pairs[a*bins+b]++
	}
	if chi, lim := chiSquare(first, bins, keys), chiLimit(bins-1); chi > lim {
		t.Errorf("index 0: chi-square %.1f on %d degrees of freedom, above %.1f", chi, bins-1, lim)
	}
	if chi, lim := chiSquare(pairs, bins*bins, keys), chiLimit(bins*bins-1); chi > lim {
		t.Errorf("indexes 0 and n-1: chi-square %.1f on %d degrees of freedom, above %.1f", chi, bins*bins-1, lim)
	}
}

func TestKeysDiffer(t *testing.T) {
	for _, n := range []uint64{1000, TableMax + 1} {
		a, b := New(n, 1), New(n, 2)
		same := 0
		for i := range uint64(1000) {
			if a.At(i) == b.At(i) {
				same++
			}
		}
		if same > 12 {
			t.Fatalf("n=%d: keys 1 and 2 agree on %d of 1000 indexes", n, same)
		}
	}
}

func BenchmarkAt(b *testing.B) {
	for _, n := range []uint64{1_000_003, 16_000_057} {
		p := New(n, 7)
		b.Run("", func(b *testing.B) {
			var s uint64
			for i := range uint64(b.N) {
				s += p.At(i % n)
			}
			_ = s
		})
	}
}
