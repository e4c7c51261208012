package operators_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// A checkpoint of one definition is refused, before any item, by a
// pipeline that differs in any setting that changes the stream.
func TestResumeMatrixResumeRefusesOtherDefinitions(t *testing.T) {
	seqs := matrixSeqs(120)
	base := func(mod func(*refuseKnobs)) *flow.Pipeline {
		k := refuseKnobs{seed: 1, epochs: 2, rank: 0, world: 1, per: 3, window: 3, take: 1000, pol: dropUneven, weights: []float64{1, 1}, pad: 0}
		if mod != nil {
			mod(&k)
		}
		in := func(i int) *flow.Pipeline {
			return flow.From(operators.EvenRanks(sources.Slice(seqs, sources.PartitionItems(10)), nil, evenOptions(k.pol)...)).WithSeed(uint64(i))
		}
		return flow.From(operators.Mix[[]int32]([]*flow.Pipeline{in(0), in(1)}, k.weights)).
			Via(operators.Shuffle[[]int32](5)).
			Via(operators.Pack[int32](8, k.pad, operators.Window(k.window), operators.PartitionItems(k.per))).
			Via(operators.Take[operators.Packed[int32]](k.take)).
			WithSeed(k.seed).Epochs(k.epochs).WithRank(k.rank, k.world)
	}
	tr := new(flow.Tracker)
	n := 0
	for _, err := range flow.Items[operators.Packed[int32]](context.Background(), base(nil).Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 17 {
			break
		}
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := matrixCollect[operators.Packed[int32]](base(nil).Resume(ck)); err != nil || len(got) == 0 {
		t.Fatalf("the same definition: %d items, %v", len(got), err)
	}
	// Each refusal names the part that differs.
	for _, c := range []struct {
		name, want string
		mod        func(*refuseKnobs)
	}{
		{"seed", "its seed is 1, this pipeline's 2", func(k *refuseKnobs) { k.seed = 2 }},
		{"epochs", "its epochs is 2, this pipeline's 3", func(k *refuseKnobs) { k.epochs = 3 }},
		{"rank", "this pipeline has rank 1 of 2, the checkpoint's has none", func(k *refuseKnobs) { k.rank, k.world = 1, 2 }},
		{"items per", "its stage 2, pack", func(k *refuseKnobs) { k.per = 4 }},
		{"window", "its stage 2, pack", func(k *refuseKnobs) { k.window = 4 }},
		{"take", "its stage 3, take", func(k *refuseKnobs) { k.take = 999 }},
		{"even policy", "its source, mix", func(k *refuseKnobs) { k.pol = padUneven }},
		{"mix weights", "its source, mix", func(k *refuseKnobs) { k.weights = []float64{1, 2} }},
		{"pack pad", "its stage 2, pack", func(k *refuseKnobs) { k.pad = -1 }},
	} {
		got, err := matrixCollect[operators.Packed[int32]](base(c.mod).Resume(ck))
		if err == nil || len(got) != 0 || !strings.Contains(err.Error(), "taken from another pipeline: "+c.want) {
			t.Errorf("%s: resumed %d items, error %v; want one saying %q", c.name, len(got), err, c.want)
		}
	}
}

type refuseKnobs struct {
	seed             uint64
	epochs           int64
	rank, world, per int
	window           int
	take             int64
	pol              uneven
	weights          []float64
	pad              int32
}
