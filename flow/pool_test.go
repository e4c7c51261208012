package flow_test

import (
	"testing"

	"github.com/rowflow/rowflow/flow"
)

func TestAllocRecycleDoesNotAllocate(t *testing.T) {
	flow.Recycle(flow.Alloc[int64](1024)[:1024])
	n := testing.AllocsPerRun(1000, func() {
		s := flow.Alloc[int64](1024)
		flow.Recycle(s[:1024])
	})
	if n != 0 {
		t.Fatalf("Alloc+Recycle: %v allocations per call, want 0", n)
	}
}
