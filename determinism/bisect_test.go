package determinism_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

type reading struct {
	Sensor string
	Value  int64
}

// readings is two epochs of 3000 readings through a filter; bad changes
// the reading at (epoch, index).
func readings(bad func(e, i int64) bool) *flow.Pipeline {
	src := sources.Generate(3000, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(128))
	return flow.From(src).Epochs(2).
		Via(operators.Filter(func(i int64) bool { return i%10 != 7 })).Parallel(2).
		Via(operators.FlatMap(func(i int64) ([]reading, error) {
			return []reading{{Sensor: "s", Value: i}}, nil
		})).
		Via(operators.Map(func(r reading) (reading, error) { return r, nil }))
}

func TestBisect(t *testing.T) {
	ctx := context.Background()
	if err := determinism.Bisect[reading](ctx, readings(nil), readings(nil)); err != nil {
		t.Fatalf("equal runs: %v", err)
	}
	// A change in the second epoch, at input row 2222.
	changed := readings(nil).Via(operators.Map(func(r reading) (reading, error) {
		if r.Value == 2222 {
			r.Sensor = "t"
		}
		return r, nil
	}))
	err := determinism.Bisect[reading](ctx, readings(nil), changed)
	var d *determinism.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("a changed row: %v", err)
	}
	// Compare, side by side, finds the same item.
	var want *determinism.Divergence
	if !errors.As(determinism.Compare[reading](ctx, readings(nil), changed), &want) {
		t.Fatal("Compare found no difference")
	}
	if d.Position != want.Position || d.Path != ".Sensor" || d.Reference.ID != want.Reference.ID || d.Error() != want.Error() {
		t.Fatalf("Bisect: %v\nCompare: %v", d, want)
	}
	if d.Reference.Value.(reading).Value != 2222 {
		t.Fatalf("the divergence is at %v", d.Reference)
	}
	// A stream that ends early.
	short := readings(nil).Via(operators.Take[reading](4000))
	err = determinism.Bisect[reading](ctx, readings(nil), short)
	if !errors.As(err, &d) || d.Position != 4000 || !strings.Contains(err.Error(), "ended early, after 4000 items") {
		t.Fatalf("a shorter stream: %v", err)
	}
}

// TestBisectAcrossAnEpochEnd: the second stream has an extra partition at
// the end of each epoch, so the first partitions that differ belong to
// different epochs (epoch 1 in the first stream, epoch 0 in the second).
// Bisect must resume each stream in its own epoch and find item 2, as
// Compare does; it once resumed both in the first stream's epoch and
// reported item 4.
func TestBisectAcrossAnEpochEnd(t *testing.T) {
	ctx := context.Background()
	p := func(vals ...int64) *flow.Pipeline {
		return flow.From(sources.Slice(vals, sources.PartitionItems(2))).Epochs(3)
	}
	want := determinism.Compare[int64](ctx, p(0, 1), p(0, 1, 2))
	var d *determinism.Divergence
	if !errors.As(want, &d) || d.Position != 2 {
		t.Fatalf("Compare = %v, want a divergence at item 2", want)
	}
	if got := determinism.Bisect[int64](ctx, p(0, 1), p(0, 1, 2)); got == nil || got.Error() != want.Error() {
		t.Errorf("Bisect = %v\nwant %v", got, want)
	}
	if got, want := determinism.Bisect[int64](ctx, p(0, 1, 2), p(0, 1)), determinism.Compare[int64](ctx, p(0, 1, 2), p(0, 1)); got == nil || got.Error() != want.Error() {
		t.Errorf("the other way round: Bisect = %v\nwant %v", got, want)
	}
}
