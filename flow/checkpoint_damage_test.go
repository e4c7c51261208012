package flow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
)

// TestDamagedCheckpointsRefused: any one byte of a checkpoint's JSON
// changed, an older format without a checksum, positions no run takes, and a stage
// state with fields its stage does not have are refused, not resumed from
// a wrong position.
func TestDamagedCheckpointsRefused(t *testing.T) {
	build := resumeCases["stateful"]
	items, cks := trackedRun(t, build(1))
	ck := cks[len(items)/2]
	if st := flow.FieldsOf(ck).Stages; len(st) == 0 || st[0].State == nil {
		t.Fatalf("the checkpoint has no stage state to damage: %+v", ck)
	}
	js, err := json.Marshal(ck)
	if err != nil {
		t.Fatal(err)
	}
	for i := range js {
		for _, bit := range []byte{1, 0x80} {
			damaged := append([]byte(nil), js...)
			damaged[i] ^= bit
			var back flow.Checkpoint
			if err := json.Unmarshal(damaged, &back); err == nil {
				t.Fatalf("byte %d of %d, bit %#x flipped: accepted as %+v\n%s", i, len(js), bit, back, damaged)
			}
		}
	}
	var back flow.Checkpoint
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(js, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "checksum")
	old, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(old, &back); err == nil || !strings.Contains(err.Error(), "before checkpoints carried one") {
		t.Errorf("a checkpoint of an older format, without a checksum: %v", err)
	}

	edits := map[string]func(c *flow.CheckpointFields){
		"negative delivered":   func(c *flow.CheckpointFields) { c.Delivered = -4 },
		"negative partition":   func(c *flow.CheckpointFields) { c.Part = -3 },
		"negative input row":   func(c *flow.CheckpointFields) { c.Stages[0].In.Row = -1 },
		"negative output part": func(c *flow.CheckpointFields) { c.Stages[0].Out.Part = -7 },
		"a foreign state":      func(c *flow.CheckpointFields) { c.Stages[0].State = json.RawMessage(`{"garbage":1}`) },
		"state and more": func(c *flow.CheckpointFields) {
			c.Stages[0].State = append(append(json.RawMessage{}, c.Stages[0].State...), " 1"...)
		},
	}
	for name, edit := range edits {
		n, runErr := resumeEdited(build(1), ck, edit)
		if runErr == nil {
			t.Errorf("%s: resumed, %d items", name, n)
		}
	}
}

// resumeEdited resumes p from a copy of ck that edit changed, and returns
// how many items it gave before its first error, and that error.
func resumeEdited(p *flow.Pipeline, ck flow.Checkpoint, edit func(*flow.CheckpointFields)) (n int, err error) {
	c := flow.EditCheckpoint(ck, edit)
	for _, err := range flow.Items[int64](context.Background(), p.Resume(c)) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
