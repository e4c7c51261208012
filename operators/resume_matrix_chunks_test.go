package operators_test

import (
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// The fingerprint ignores the source's chunk size, so a checkpoint taken
// with one chunk size resumes a pipeline with another: the harness's
// parallelism also picks the chunk size.
func TestResumeMatrixResumeAcrossChunkSizes(t *testing.T) {
	chunk := map[int]int{1: 1024, 2: 3, 4: 1, 8: 7}
	build := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(matrixSeqs(260), sources.PartitionItems(29), sources.ChunkSize(chunk[par]))).
			Via(operators.Filter(func(s []int32) bool { return len(s) != 2 })).Parallel(par).
			Via(operators.Shuffle[[]int32](11, operators.PartitionItems(13))).
			Via(operators.BucketByLength(func(s []int32) int { return len(s) }, operators.Buckets([]int{4, 9}, []int{4, 3, 2}), operators.PartitionItems(2))).
			Via(operators.FlatMap(func(r operators.Rows[[]int32]) ([][]int32, error) { return r.Values, nil })).Parallel(par).
			Via(operators.Pack[int32](9, 0, operators.Window(3), operators.PartitionItems(4))).
			Epochs(2).WithSeed(12)
	}
	matrixResume[operators.Packed[int32]](t, build, matrixOpts{stops: 6, chain: 2, min: 60})
}
