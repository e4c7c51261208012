package operators_test

import (
	"fmt"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// seqs returns n token lists of uneven lengths (0 to 12 tokens).
func matrixSeqs(n int) [][]int32 {
	out := make([][]int32, n)
	for i := range out {
		for j := range (i * 7) % 13 {
			out[i] = append(out[i], int32(i*100+j))
		}
	}
	return out
}

func matrixInts(n int) []int64 {
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = int64(i)
	}
	return xs
}

var remainders = []remainder{keepRemainder, dropRemainder, padRemainder}

// Batch with every remainder policy, parallel stages on both sides, two
// epochs whose sizes are not multiples of the batch size; every position,
// including the last partial batch and right after the epoch boundary.
func TestResumeMatrixBatchRemainders(t *testing.T) {
	for _, last := range remainders {
		for _, per := range []int{1, 3} {
			t.Run(fmt.Sprintf("%v/per%d", last, per), func(t *testing.T) {
				build := func(par int) *flow.Pipeline {
					return flow.From(sources.Slice(matrixInts(203), sources.PartitionItems(17))).
						Via(operators.Filter(func(v int64) bool { return v%11 != 3 })).Parallel(par).
						Via(operators.Batch[int64](7, withRemainder[operators.BatchOption](last, operators.PartitionItems(per))...)).
						Via(operators.Map(func(r operators.Rows[int64]) (operators.Rows[int64], error) { return r, nil })).Parallel(par).
						Epochs(2).WithSeed(3)
				}
				matrixResume[operators.Rows[int64]](t, build, matrixOpts{stops: 6, min: 40})
			})
		}
	}
}

func TestResumeMatrixReduce(t *testing.T) {
	sum := func(acc int64, v int64) (int64, error) { return acc*31 + v, nil }
	for _, last := range []remainder{keepRemainder, dropRemainder} {
		t.Run(fmt.Sprint(last), func(t *testing.T) {
			build := func(par int) *flow.Pipeline {
				return flow.From(sources.Slice(matrixInts(300), sources.PartitionItems(13))).
					Via(operators.Filter(func(v int64) bool { return v%7 != 3 })).Parallel(par).
					Via(operators.ReduceEvery(5, sum, withRemainder[operators.ReduceOption](last, operators.PartitionItems(4))...)).
					Via(operators.ReduceRuns(func(v int64) int64 { return v % 3 }, sum, operators.PartitionItems(2))).
					Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par).
					Epochs(2)
			}
			matrixResume[int64](t, build, matrixOpts{stops: 6, min: 20})
		})
	}
}

// Bucketing with a partly filled bucket at every position.
func TestResumeMatrixBucketByLength(t *testing.T) {
	length := func(s []int32) int { return len(s) }
	cases := map[string][]operators.BucketOption{
		"buckets":      {operators.Buckets([]int{3, 8}, []int{5, 3, 2})},
		"budget":       {operators.TokenBudget(30)},
		"budget+bound": {operators.TokenBudget(30), operators.Buckets([]int{3, 8}, []int{5, 3, 2})},
	}
	for name, opts := range cases {
		for _, last := range remainders {
			if last == padRemainder && name != "buckets" {
				continue
			}
			t.Run(fmt.Sprintf("%s/%v", name, last), func(t *testing.T) {
				build := func(par int) *flow.Pipeline {
					o := append(withRemainder(last, append([]operators.BucketOption{}, opts...)...), operators.PartitionItems(2))
					return flow.From(sources.Slice(matrixSeqs(250), sources.PartitionItems(19))).
						Via(operators.Filter(func(s []int32) bool { return len(s) != 4 })).Parallel(par).
						Via(operators.BucketByLength(length, o...)).
						Via(operators.Pad(int32(-1), operators.PadMultiple(4))).Parallel(par).
						Epochs(2)
				}
				matrixResume[operators.Padded[int32]](t, build, matrixOpts{stops: 5, min: 30})
			})
		}
	}
}

// Pack with a window partly filled at every position.
func TestResumeMatrixPack(t *testing.T) {
	for _, w := range []int{1, 3, 8} {
		for _, ov := range []overlong{splitOverlong, dropOverlong} {
			t.Run(fmt.Sprintf("w%d/%v", w, ov), func(t *testing.T) {
				build := func(par int) *flow.Pipeline {
					return flow.From(sources.Slice(matrixSeqs(220), sources.PartitionItems(23))).
						Via(operators.Map(func(s []int32) ([]int32, error) { return s, nil })).Parallel(par).
						Via(operators.Pack[int32](10, -1, withOverlong(ov, operators.Window(w), operators.PartitionItems(3))...)).
						Epochs(2)
				}
				matrixResume[operators.Packed[int32]](t, build, matrixOpts{stops: 5, min: 30})
			})
		}
	}
}

func TestResumeMatrixTableAndPool(t *testing.T) {
	for _, last := range remainders {
		t.Run(fmt.Sprintf("table/%v", last), func(t *testing.T) {
			build := func(par int) *flow.Pipeline {
				return flow.From(sources.Slice(matrixInts(333), sources.PartitionItems(11))).
					Via(operators.Filter(func(v int64) bool { return v%5 != 1 })).Parallel(par).
					Via(operators.TableBucket[int64](4, withRemainder[operators.TableOption](last, operators.Tables(1, 3, 25), operators.PartitionItems(3))...)).
					Epochs(2).WithSeed(9)
			}
			matrixResume[operators.Rows[int64]](t, build, matrixOpts{stops: 5, min: 30})
		})
		t.Run(fmt.Sprintf("pool/%v", last), func(t *testing.T) {
			build := func(par int) *flow.Pipeline {
				return flow.From(sources.Slice(matrixInts(333), sources.PartitionItems(11))).
					Via(operators.Filter(func(v int64) bool { return v%5 != 1 })).Parallel(par).
					Via(operators.BucketPool(4, 3, func(v int64) int { return int(v % 9) }, withRemainder[operators.BatchOption](last, operators.PartitionItems(2))...)).
					Epochs(2).WithSeed(9)
			}
			matrixResume[operators.Rows[int64]](t, build, matrixOpts{stops: 5, min: 30})
		})
	}
}
