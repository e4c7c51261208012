package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
)

// update rewrites the golden file: go test ./examples/replay -update.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const golden = "testdata/invoices.golden"

// TestReplay checks the pipeline's stream against the golden file at
// parallelism 1 and 4: the same items, row IDs and order, partition by
// partition. Only the first run rewrites the file with -update.
func TestReplay(t *testing.T) {
	ctx := context.Background()
	for i, par := range []int{1, 4} {
		if err := determinism.CheckGolden[Invoice](ctx, pipeline(par, tax), golden, *update && i == 0); err != nil {
			t.Fatalf("parallelism %d: %v", par, err)
		}
	}
}

// TestVerify compares the pipeline at parallelism 1 with other
// parallelisms directly, item by item.
func TestVerify(t *testing.T) {
	build := func(par int) *flow.Pipeline { return pipeline(par, tax) }
	if err := determinism.Verify[Invoice](context.Background(), build, determinism.Parallelisms(2, 4)); err != nil {
		t.Fatal(err)
	}
}

// TestReplayCatchesAChange shows what the replay test reports when the
// pipeline changes: rounding the tax down instead of half up changes a
// few invoices, and the check names the first partition and row that
// differ, and the new value.
func TestReplayCatchesAChange(t *testing.T) {
	ctx := context.Background()
	roundDown := func(o Order) int64 { return o.Cents * 8 / 100 }
	err := determinism.CheckGolden[Invoice](ctx, pipeline(4, roundDown), golden, false)
	if !errors.Is(err, determinism.ErrMismatch) {
		t.Fatalf("Check of the changed pipeline = %v, want a mismatch", err)
	}
	t.Log(err)

	// Find the first differing item by comparing the two pipelines.
	var d *determinism.Divergence
	if !errors.As(determinism.Compare[Invoice](ctx, pipeline(1, tax), pipeline(1, roundDown)), &d) {
		t.Fatal("Compare found no divergence")
	}
	if d.Path != ".Tax" {
		t.Errorf("Compare's divergence is at %q, want .Tax", d.Path)
	}
	pos, row := d.Position, d.Candidate.ID
	part := pos / 100
	for _, want := range []string{
		fmt.Sprintf("%s: partition %d differs: the file records part %d, 100 items", golden, part, part),
		fmt.Sprintf("; item %d (%d of the partition) differs: the file records row %v", pos, pos%100, row),
		fmt.Sprintf("; the run has row %v", row),
		fmt.Sprintf(", value {Order:%+v Tax:%d", d.Candidate.Value.(Invoice).Order, d.Candidate.Value.(Invoice).Tax),
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report\n%v\ndoes not contain\n%s", err, want)
		}
	}
}
