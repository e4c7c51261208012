package operators_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// combineResumeInput is input i of a combination: n rows in uneven partitions,
// through a filter and a shuffle, so that its own checkpoints have state.
func combineResumeInput(i int, n int64, par int) *flow.Pipeline {
	src := sources.Generate(n, func(k int64) (int64, error) { return int64(i)*1_000_000 + k, nil },
		sources.PartitionItems(37+10*i), sources.Named(string(rune('a'+i))))
	return flow.From(src).
		Via(operators.Filter(func(v int64) bool { return v%11 != 3 })).Parallel(par).
		Via(operators.Shuffle[int64](25)).
		WithSeed(uint64(i))
}

var combineResumeCases = map[string]func(par int) *flow.Pipeline{
	"concat": func(par int) *flow.Pipeline {
		return flow.From(operators.Concat[int64](combineResumeInput(0, 300, par), combineResumeInput(1, 0, par), combineResumeInput(2, 200, par))).
			Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(par)
	},
	"interleave": func(par int) *flow.Pipeline {
		ins := []*flow.Pipeline{combineResumeInput(0, 400, par), combineResumeInput(1, 150, par), combineResumeInput(2, 250, par)}
		return flow.From(operators.Interleave[int64](ins, 2, 7, operators.PartitionItems(60))).Epochs(2)
	},
	"mix, drop": func(par int) *flow.Pipeline {
		ins := []*flow.Pipeline{combineResumeInput(0, 400, par), combineResumeInput(1, 150, par), combineResumeInput(2, 250, par)}
		return flow.From(operators.Mix[int64](ins, []float64{2, 1, 1}, operators.PartitionItems(45))).
			Via(operators.Batch[int64](4)).
			Via(operators.Map(func(r operators.Rows[int64]) (int64, error) { return r.Values[0]*10 + int64(len(r.Values)), nil })).Parallel(par).
			Epochs(2).WithSeed(4)
	},
	"mix, stop": func(par int) *flow.Pipeline {
		ins := []*flow.Pipeline{combineResumeInput(0, 500, par), combineResumeInput(1, 400, par)}
		return flow.From(operators.Mix[int64](ins, []float64{1, 3}, operators.StopExhausted(), operators.PartitionItems(40))).Epochs(2).WithSeed(2)
	},
	"mix, cycle": func(par int) *flow.Pipeline {
		ins := []*flow.Pipeline{combineResumeInput(0, 300, par), combineResumeInput(1, 90, par), combineResumeInput(2, 160, par)}
		return flow.From(operators.Mix[int64](ins, []float64{1, 1, 1}, operators.CycleExhausted(), operators.PartitionItems(50))).WithSeed(8)
	},
}

// Checkpoints of pipelines that combine inputs resume them exactly, at
// parallelism 1 and 4: each input's own position (with its shuffle's
// state) and the mix's stream are part of the checkpoint.
func TestResumeCombinations(t *testing.T) {
	for name, build := range combineResumeCases {
		t.Run(name, func(t *testing.T) {
			want, cks := testutil.TrackedRun[int64](t, build(1))
			if len(want) < 300 {
				t.Fatalf("only %d items", len(want))
			}
			rng := rand.New(rand.NewPCG(5, 6))
			positions := []int{0, len(want) / 2, len(want) - 1}
			for range 15 {
				positions = append(positions, rng.IntN(len(want)))
			}
			for _, k := range positions {
				js, _ := json.Marshal(cks[k])
				for _, par := range []int{1, 4} {
					var got []flow.Item[int64]
					for it, err := range flow.Items[int64](context.Background(), build(par).Resume(cks[k])) {
						if err != nil {
							t.Fatalf("resume after item %d at parallelism %d: %v\n%s", k, par, err, js)
						}
						got = append(got, it)
					}
					if !slices.Equal(got, want[k+1:]) {
						t.Fatalf("resumed after item %d of %d at parallelism %d: %s\n%s",
							k, len(want), par, firstDiff(got, want[k+1:]), js)
					}
				}
			}
		})
	}
}
