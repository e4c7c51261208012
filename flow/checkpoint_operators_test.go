package flow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// The checkpoints below are edited in code (flow.EditCheckpoint), as a
// forged checkpoint whose checksum was recomputed would be: the runtime
// and the operators' states refuse them all the same.

// A JSON checkpoint of a pipeline with a stateful stage, with that
// stage's state removed (a position no run of this pipeline takes: every
// checkpoint of it has one state per stateful stage), must be refused,
// not resumed with the stage started afresh from the consumer's
// partition number read as a source partition.
func TestResumeMatrixResumeRefusesMissingStageState(t *testing.T) {
	build := func() *flow.Pipeline {
		return flow.From(sources.Slice(make([]int64, 200), sources.PartitionItems(10))).
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
	edited := flow.EditCheckpoint(ck, func(c *flow.CheckpointFields) { c.Stages = nil })
	want, err := collectItems[operators.Rows[int64]](build().Resume(ck))
	if err != nil {
		t.Fatal(err)
	}
	got, err := collectItems[operators.Rows[int64]](build().Resume(edited))
	if err == nil {
		t.Fatalf("a checkpoint without its Batch state resumed: %d batches (the intact checkpoint gives %d), first %v, want %v",
			len(got), len(want), got[0].Value.Values, want[0].Value.Values)
	}
	if !strings.Contains(err.Error(), "no state for stage 1 (batch)") {
		t.Fatalf("got %v, want it to name the batch stage's missing state", err)
	}
}

// TestResumeRefusesAForeignState: a stage state with a field the stage's
// state does not have (a damaged or edited checkpoint) fails the resumed
// run instead of starting the stage as if fresh.
func TestResumeRefusesAForeignState(t *testing.T) {
	xs := make([]int64, 50)
	p := flow.From(sources.Slice(xs, sources.PartitionItems(7))).Via(operators.Batch[int64](4))
	tr := new(flow.Tracker)
	k := 0
	for _, err := range flow.Values[operators.Rows[int64]](t.Context(), p.Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		if k++; k == 3 {
			break
		}
	}
	ck, err := tr.Checkpoint()
	if err != nil || len(flow.FieldsOf(ck).Stages) != 1 {
		t.Fatalf("checkpoint %+v, %v", ck, err)
	}
	if _, err := testItems(p.Resume(ck)); err != nil {
		t.Fatalf("the checkpoint as taken: %v", err)
	}
	ck = flow.EditCheckpoint(ck, func(c *flow.CheckpointFields) { c.Stages[0].State = json.RawMessage(`{"garbage":1}`) })
	if n, err := testItems(p.Resume(ck)); err == nil || !strings.Contains(err.Error(), "garbage") {
		t.Errorf("a foreign state: %d batches, %v", n, err)
	}
}

func testItems(p *flow.Pipeline) (int, error) {
	n := 0
	for _, err := range flow.Values[operators.Rows[int64]](context.Background(), p) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func collectItems[T any](p *flow.Pipeline) ([]flow.Item[T], error) {
	var out []flow.Item[T]
	for it, err := range flow.Items[T](context.Background(), p) {
		if err != nil {
			return out, err
		}
		out = append(out, it)
	}
	return out, nil
}
