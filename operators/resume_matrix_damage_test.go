package operators_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// A JSON checkpoint of a pipeline with a stateful stage, with that
// stage's state removed (a position no run of this pipeline takes: every
// checkpoint of it has one state per stateful stage), must be refused,
// not resumed with the stage started afresh from the consumer's
// partition number read as a source partition.
func TestResumeMatrixResumeRefusesMissingStageState(t *testing.T) {
	build := func() *flow.Pipeline {
		return flow.From(sources.Slice(matrixInts(200), sources.PartitionItems(10))).
			Via(operators.Batch[int64](3, operators.PartitionItems(2)))
	}
	tr := new(flow.Tracker)
	n := 0
	for _, err := range flow.Items[operators.Rows[int64]](context.Background(), build().Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 20 {
			break
		}
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ck)
	var edited flow.Checkpoint
	if err := json.Unmarshal(b, &edited); err != nil {
		t.Fatal(err)
	}
	edited.Stages = nil
	want, err := matrixCollect[operators.Rows[int64]](build().Resume(ck))
	if err != nil {
		t.Fatal(err)
	}
	got, err := matrixCollect[operators.Rows[int64]](build().Resume(edited))
	if err == nil {
		t.Fatalf("a checkpoint without its Batch state resumed: %d batches (the intact checkpoint gives %d), first %v, want %v",
			len(got), len(want), got[0].Value.Values, want[0].Value.Values)
	}
	if !strings.Contains(err.Error(), "no state for stage 1 (batch)") {
		t.Fatalf("got %v, want it to name the batch stage's missing state", err)
	}
}

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
