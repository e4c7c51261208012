package pcg

import "testing"

func TestKeyedStreamsDiffer(t *testing.T) {
	lists := [][]uint64{{}, {0}, {1}, {0, 0}, {0, 1}, {1, 0}, {2, 3, 4}}
	seen := map[uint64]int{}
	for i, keys := range lists {
		r := Keyed(7, keys...)
		v := uint64(r.Next())<<32 | uint64(r.Next())
		if prev, ok := seen[v]; ok {
			t.Fatalf("keys %v start like keys %v", keys, lists[prev])
		}
		seen[v] = i
	}
	a, b := Keyed(1, 2, 3), Keyed(1, 2, 3)
	for range 100 {
		if a.Next() != b.Next() {
			t.Fatal("one key list gave two streams")
		}
	}
}

func TestIntnIsUniformAndSkippable(t *testing.T) {
	r := Keyed(3, 1)
	counts := make([]int, 10)
	const draws = 100000
	start := r
	var tenth int
	for d := range draws {
		v := r.Intn(10)
		counts[v]++
		if d == 10 {
			tenth = v
		}
	}
	for v, c := range counts {
		if c < draws/10-600 || c > draws/10+600 { // about 6 standard deviations
			t.Errorf("value %d drawn %d times of %d", v, c, draws)
		}
	}
	start.Advance(2 * 10)
	if got := start.Intn(10); got != tenth {
		t.Fatalf("Advance(20) then Intn gave %d, draw 10 was %d", got, tenth)
	}
}
