package operators_test

import (
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

func TestResumeMatrixIndexShuffleRanks(t *testing.T) {
	for rank := range 3 {
		build := func(par int) *flow.Pipeline {
			return flow.From(operators.IndexShuffle(sources.Generate(151, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(8)), operators.PartitionItems(7))).
				Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par).
				Via(operators.ReduceEvery(3, func(a, v int64) (int64, error) { return a*1000 + v, nil }, operators.PartitionItems(2))).
				WithRank(rank, 3).Epochs(2).WithSeed(31)
		}
		matrixResume[int64](t, build, matrixOpts{stops: 3, chain: 3, min: 10})
	}
}
