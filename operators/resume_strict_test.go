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
	if err != nil || len(ck.Stages) != 1 {
		t.Fatalf("checkpoint %+v, %v", ck, err)
	}
	if _, err := testItems(p.Resume(ck)); err != nil {
		t.Fatalf("the checkpoint as taken: %v", err)
	}
	ck.Stages = []flow.StageState{ck.Stages[0]}
	ck.Stages[0].State = json.RawMessage(`{"garbage":1}`)
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
