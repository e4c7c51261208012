package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
)

// editJSON decodes a checkpoint's JSON into generic values (numbers kept
// as written), lets edit change them, and encodes the result.
func editJSON(t *testing.T, js []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func stageOf(m map[string]any, k int) map[string]any {
	return m["stages"].([]any)[k].(map[string]any)
}

// TestEditedJSONCheckpointsRefused: a JSON checkpoint with a key deleted
// or a position moved (issue 27, finding 5: a deleted state resumed 67 of
// 178 rows, a deleted input mark duplicated 111, a moved input row lost
// one) is refused when it is decoded, naming what is wrong; one without
// its checksum, or with another, is refused too. Unedited, it decodes.
func TestEditedJSONCheckpointsRefused(t *testing.T) {
	build := resumeCases["stateful"]
	items, cks := trackedRun(t, build(1))
	ck := cks[len(items)/2]
	if st := flow.FieldsOf(ck).Stages; len(st) != 2 || st[1].State == nil {
		t.Fatalf("the checkpoint has no stage state to edit: %+v", ck)
	}
	js, err := json.Marshal(ck)
	if err != nil {
		t.Fatal(err)
	}
	var back flow.Checkpoint
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatalf("the unedited checkpoint: %v", err)
	}
	// Indented (as by a pretty-printer) it still decodes.
	var ind bytes.Buffer
	if err := json.Indent(&ind, js, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(ind.Bytes(), &back); err != nil {
		t.Fatalf("the indented checkpoint: %v", err)
	}

	edits := []struct {
		name, want string
		edit       func(m map[string]any)
	}{
		{"a stage's state deleted", `"state"`, func(m map[string]any) { delete(stageOf(m, 1), "state") }},
		{"a stage's state null", "checksum", func(m map[string]any) { stageOf(m, 1)["state"] = nil }},
		{"a stage's in deleted", `"in"`, func(m map[string]any) { delete(stageOf(m, 0), "in") }},
		{"in.row moved by one", "checksum", func(m map[string]any) {
			in := stageOf(m, 1)["in"].(map[string]any)
			n, _ := in["row"].(json.Number).Int64()
			in["row"] = n + 1
		}},
		{"delivered deleted", `"delivered"`, func(m map[string]any) { delete(m, "delivered") }},
		{"part moved", "checksum", func(m map[string]any) {
			n, _ := m["part"].(json.Number).Int64()
			m["part"] = n + 1
		}},
		{"out.part deleted", `"part"`, func(m map[string]any) { delete(stageOf(m, 0)["out"].(map[string]any), "part") }},
		{"checksum deleted", `"checksum"`, func(m map[string]any) { delete(m, "checksum") }},
		{"checksum changed", "checksum", func(m map[string]any) { m["checksum"] = "00000000" }},
		{"a field added", "unknown", func(m map[string]any) { m["extra"] = 1 }},
		{"a stage deleted", "checksum", func(m map[string]any) { m["stages"] = m["stages"].([]any)[:1] }},
	}
	for _, e := range edits {
		b := editJSON(t, js, e.edit)
		var c flow.Checkpoint
		err := json.Unmarshal(b, &c)
		if err == nil {
			n := 0
			var runErr error
			for _, err := range flow.Items[int64](context.Background(), build(1).Resume(c)) {
				if err != nil {
					runErr = err
					break
				}
				n++
			}
			t.Errorf("%s: decoded; the resumed run gave %d items of %d (error %v)", e.name, n, len(items)-len(items)/2-1, runErr)
			continue
		}
		if !strings.Contains(err.Error(), e.want) {
			t.Errorf("%s: %v; want it to name %s", e.name, err, e.want)
		}
	}
}

// TestUnreachableCheckpointRefused: a checkpoint (built in code, so with no
// checksum to catch it) whose consumer position lies beyond the end of its
// partition, or whose stage state is missing with its marks set, fails the
// resumed run rather than skipping to the next partition.
func TestUnreachableCheckpointRefused(t *testing.T) {
	build := resumeCases["stateful"]
	items, cks := trackedRun(t, build(1))
	ck := cks[len(items)/2]
	edits := map[string]func(c *flow.CheckpointFields){
		"delivered beyond the partition": func(c *flow.CheckpointFields) { c.Delivered += 1000 },
		"input row beyond the partition": func(c *flow.CheckpointFields) { c.Stages[1].In.Row += 1000 },
		"a state deleted":                func(c *flow.CheckpointFields) { c.Stages[1].State = nil },
	}
	wants := map[string]string{
		"delivered beyond the partition": "not one this pipeline reaches: the partition has",
		"input row beyond the partition": "not one this pipeline reaches: the partition has",
		"a state deleted":                "its state was removed",
	}
	for name, edit := range edits {
		n, runErr := resumeEdited(build(1), ck, edit)
		if runErr == nil || !strings.Contains(runErr.Error(), wants[name]) {
			t.Errorf("%s: resumed, %d items, error %v; want one saying %q", name, n, runErr, wants[name])
		}
	}
}
