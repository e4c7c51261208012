package operators_test

import (
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// A checkpoint taken after a run over an empty stream holds its stages'
// states too, and resumes to nothing.
func TestResumeMatrixEmptyRunResumes(t *testing.T) {
	build := func() *flow.Pipeline {
		return flow.From(sources.Slice([]int64{}, sources.PartitionItems(10))).
			Via(operators.Batch[int64](3)).
			Via(operators.Prefetch[operators.Rows[int64]](2))
	}
	tr := new(flow.Tracker)
	if got, err := matrixCollect[operators.Rows[int64]](build().Checkpoints(tr)); err != nil || len(got) != 0 {
		t.Fatalf("the empty run gives %d items, %v", len(got), err)
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := matrixCollect[operators.Rows[int64]](build().Resume(ck)); err != nil || len(got) != 0 {
		t.Fatalf("resumed from the end of the empty run (checkpoint %+v): %d items, %v", ck, len(got), err)
	}
}
