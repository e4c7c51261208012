package operators_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// At(e, k) for every k of every epoch, in each seek mode: the run
// gives the rest of the uninterrupted run, and a checkpoint taken after
// its first and second items resumes the uninterrupted run.
func TestResumeMatrixAtEverywhere(t *testing.T) {
	cases := map[string]func(par int) *flow.Pipeline{
		"plan, prefetch": func(par int) *flow.Pipeline {
			return flow.From(sources.Slice(matrixInts(90), sources.PartitionItems(13), sources.ChunkSize(4))).
				Via(operators.Map(func(v int64) (int64, error) { return v * 5, nil })).Parallel(par).
				Via(operators.Prefetch[int64](2)).
				Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(par).
				Epochs(3)
		},
		"epoch, filter": func(par int) *flow.Pipeline {
			return flow.From(sources.Generate(90, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(11), sources.ChunkSize(3))).
				Via(operators.Filter(func(v int64) bool { return v%4 != 1 })).Parallel(par).
				Via(operators.Prefetch[int64](1)).
				Epochs(3)
		},
		"run, batch": func(par int) *flow.Pipeline {
			return flow.From(operators.IndexShuffle(sources.Slice(matrixInts(90), sources.PartitionItems(13)))).
				Via(operators.Filter(func(v int64) bool { return v%4 != 1 })).Parallel(par).
				Via(operators.Batch[int64](2, operators.PartitionItems(3))).
				Via(operators.Map(func(r operators.Rows[int64]) (int64, error) { return r.Values[0]*100 + int64(len(r.Values)), nil })).Parallel(par).
				Epochs(3).WithSeed(6)
		},
	}
	ctx := context.Background()
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := matrixCollect[int64](build(1))
			if err != nil {
				t.Fatal(err)
			}
			for e := int64(0); e < 3; e++ {
				first := -1
				n := 0
				for i, it := range want {
					if it.Epoch() == e {
						if first < 0 {
							first = i
						}
						n++
					}
				}
				for k := 0; k <= n; k++ {
					par := matrixPars[(k+int(e))%4]
					from := first + k
					if k == n {
						from = len(want) // documented: an epoch without item k gives nothing
					}
					got, err := matrixCollect[int64](build(par).Resume(flow.At(e, int64(k))))
					if err != nil {
						t.Fatal(err)
					}
					if !itemsEqual(got, want[from:]) {
						t.Fatalf("At(%d, %d) at parallelism %d: %s", e, k, par, firstDiff(got, want[from:]))
					}
					for j := range 2 {
						if from+j >= len(want) {
							break
						}
						tr := new(flow.Tracker)
						m := 0
						for _, err := range flow.Items[int64](ctx, build(par).Resume(flow.At(e, int64(k))).Checkpoints(tr)) {
							if err != nil {
								t.Fatal(err)
							}
							if m == j {
								break
							}
							m++
						}
						ck, err := tr.Checkpoint()
						if err != nil {
							t.Fatalf("At(%d, %d), checkpoint after item %d: %v", e, k, j, err)
						}
						b, _ := json.Marshal(ck)
						rpar := matrixPars[(k+j+1)%4]
						got, err := matrixCollect[int64](build(rpar).Resume(ck))
						if err != nil {
							t.Fatal(err)
						}
						if w := want[from+j+1:]; !itemsEqual(got, w) {
							t.Fatalf("At(%d, %d), checkpoint after its item %d, resumed at parallelism %d: %s\n%s", e, k, j, rpar, firstDiff(got, w), b)
						}
					}
				}
			}
		})
	}
	_ = fmt.Sprint
}
