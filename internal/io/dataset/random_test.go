package dataset

import (
	"slices"
	"testing"

	"github.com/rowflow/rowflow/internal/random/pcg"
)

// TestStreamDerivation recomputes a stream from the formula in the package
// documentation.
func TestStreamDerivation(t *testing.T) {
	g := uint64(0x9e3779b97f4a7c15)
	seed, epoch, purpose := uint64(42), int64(3), uint64(purposeWindow)
	k := mix64(mix64(seed+g) ^ (uint64(epoch) + 2*g))
	state := mix64(k ^ (purpose + 3*g))
	seq := mix64(k ^ (purpose + 4*g))
	want := pcg.New(state, seq)
	got := newStream(seed, epoch, purpose)
	for i := range 10 {
		if a, b := got.r.Next(), want.Next(); a != b {
			t.Fatalf("output %d: %d, want %d", i, a, b)
		}
	}
}

// TestIntnUsesTwoOutputs checks that choice d starts at output 2d, so that
// a stream can jump to a choice with Advance.
func TestIntnUsesTwoOutputs(t *testing.T) {
	a := newStream(1, 0, purposeGlobal)
	var choices []int
	for range 20 {
		choices = append(choices, a.intn(1000))
	}
	b := newStream(1, 0, purposeGlobal)
	b.r.Advance(2 * 13)
	if got := b.intn(1000); got != choices[13] {
		t.Errorf("choice 13 after Advance: %d, want %d", got, choices[13])
	}
	for _, n := range []int{1, 2, 3, 1 << 40} {
		for range 100 {
			if v := a.intn(n); v < 0 || v >= n {
				t.Fatalf("intn(%d) = %d", n, v)
			}
		}
	}
}

// TestShuffleGolden pins the permutations of the determinism contract: a
// change here changes every shuffled plan.
func TestShuffleGolden(t *testing.T) {
	tests := []struct {
		seed    uint64
		epoch   int64
		purpose uint64
	}{
		{0, 0, purposeGlobal},
		{42, 0, purposeGlobal},
		{42, 1, purposeGlobal},
		{42, 0, purposeFiles},
	}
	golden := [][]int{
		{2, 4, 1, 8, 6, 7, 5, 0, 3, 9},
		{5, 6, 9, 8, 1, 2, 4, 7, 0, 3},
		{3, 0, 9, 5, 4, 7, 1, 8, 2, 6},
		{8, 2, 4, 6, 3, 5, 9, 0, 1, 7},
	}
	for i, tt := range tests {
		a := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
		shuffle(newStream(tt.seed, tt.epoch, tt.purpose), a)
		if !slices.Equal(a, golden[i]) {
			t.Errorf("seed %d epoch %d purpose %d: %v, want %v", tt.seed, tt.epoch, tt.purpose, a, golden[i])
		}
	}
}

// TestShuffleIsUniform checks that each of the 6 permutations of 3
// elements comes out about equally often over many epochs. The streams are
// fixed, so the counts are too.
func TestShuffleIsUniform(t *testing.T) {
	counts := map[[3]int]int{}
	const n = 60000
	for e := range int64(n) {
		a := [3]int{0, 1, 2}
		shuffle(newStream(5, e, purposeGlobal), a[:])
		counts[a]++
	}
	if len(counts) != 6 {
		t.Fatalf("%d permutations seen", len(counts))
	}
	for p, c := range counts {
		if c < n/6*95/100 || c > n/6*105/100 {
			t.Errorf("permutation %v: %d times of %d", p, c, n)
		}
	}
}
