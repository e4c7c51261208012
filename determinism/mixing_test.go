package determinism_test

import (
	"math/rand/v2"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

func mixingInput(n, part int) []flow.Item[int] {
	in := make([]flow.Item[int], n)
	for i := range in {
		in[i] = flow.Item[int]{Part: int64(i / part), ID: rowid.Ordinal(uint64(i)), Value: i}
	}
	return in
}

func TestMeasureMixingBounds(t *testing.T) {
	in := mixingInput(10000, 100)
	m, err := determinism.MeasureMixing(in, in, 10)
	// 91 of the windows of 10 in each partition of 100 lie inside it.
	if want := 9100.0 / 9991; err != nil || m.Mean != 0 || m.Spread != 0 || m.SinglePartition != want {
		t.Fatalf("identity: %v, %v; want 0, 0, %.4f", m, err, want)
	}
	out := append([]flow.Item[int](nil), in...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	m, err = determinism.MeasureMixing(in, out, 10)
	if err != nil {
		t.Fatal(err)
	}
	// A uniform permutation: E|U-V| = 1/3, sd sqrt(1/18) ≈ 0.236.
	if m.Mean < 0.32 || m.Mean > 0.35 || m.Spread < 0.22 || m.Spread > 0.25 || m.SinglePartition > 1e-3 {
		t.Fatalf("uniform permutation: %v", m)
	}
	// Reversal moves items by n/2 on average.
	rev := make([]flow.Item[int], len(in))
	for i := range in {
		rev[len(in)-1-i] = in[i]
	}
	if m, _ := determinism.MeasureMixing(in, rev, 10); m.MeanRows != 5000 || m.SinglePartition != 9100.0/9991 {
		t.Fatalf("reversal: %v", m)
	}
}

func TestMeasureMixingRefusesNonPermutations(t *testing.T) {
	in := mixingInput(10, 5)
	dup := append(append([]flow.Item[int](nil), in[:9]...), in[0])
	for name, out := range map[string][]flow.Item[int]{"short": in[:9], "repeat": dup} {
		if _, err := determinism.MeasureMixing(in, out, 2); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
