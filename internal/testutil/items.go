package testutil

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/rowflow/rowflow/flow"
)

// Items runs p and returns its items, failing the test on an error.
func Items[T any](t testing.TB, p *flow.Pipeline) []flow.Item[T] {
	t.Helper()
	var out []flow.Item[T]
	for it, err := range flow.Items[T](context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// SameRows reports whether a and b hold the same rows (IDs and values) in
// the same order, whatever their partition numbers: the ranks of a run
// number the parts of a partition they share apart.
func SameRows[T any](a, b []flow.Item[T]) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || !reflect.DeepEqual(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// CheckpointAfter reads p with a tracker up to its k-th item (k from 1)
// and returns the checkpoint taken after it, or the error that ended the
// run first, or an error if it ended before item k.
func CheckpointAfter[T any](ctx context.Context, p *flow.Pipeline, k int) (flow.Checkpoint, error) {
	tr := new(flow.Tracker)
	n := 0
	for _, err := range flow.Items[T](ctx, p.Checkpoints(tr)) {
		if err != nil {
			return flow.Checkpoint{}, fmt.Errorf("before item %d: %w", k, err)
		}
		if n++; n == k {
			return tr.Checkpoint()
		}
	}
	return flow.Checkpoint{}, fmt.Errorf("the run ended after %d items, before item %d", n, k)
}

// TrackedRun reads p with a tracker and returns its items and, for each
// k, the checkpoint taken after item k, through its JSON encoding (a
// round trip changing it fails the test).
func TrackedRun[T any](t testing.TB, p *flow.Pipeline) ([]flow.Item[T], []flow.Checkpoint) {
	t.Helper()
	tr := new(flow.Tracker)
	var items []flow.Item[T]
	var cks []flow.Checkpoint
	take := func() {
		ck, err := tr.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(ck)
		if err != nil {
			t.Fatal(err)
		}
		var back flow.Checkpoint
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if js2, _ := json.Marshal(back); string(js2) != string(js) {
			t.Fatalf("JSON round trip changed the checkpoint:\n%s\n%s", js, js2)
		}
		cks = append(cks, back)
	}
	for it, err := range flow.Items[T](context.Background(), p.Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
		take()
	}
	return items, cks
}
