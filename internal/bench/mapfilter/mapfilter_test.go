package mapfilter

import (
	"testing"

	"github.com/rowflow/rowflow/flow"
)

// The hand pipeline and both rowflow pipelines count what the work
// should, at partition sizes that split chunks and at the default.
func TestVariantsCount(t *testing.T) {
	for _, n := range []int{0, 1, 1023, 1025, 100_003} {
		data := Data(n)
		if got, _ := Hand(t.Context(), data); got != Want(n) {
			t.Errorf("hand, %d values: %d, want %d", n, got, Want(n))
		}
		for _, part := range []int{1000, Partition} {
			for name, shape := range map[string]func(*flow.Pipeline) *flow.Pipeline{"chunks": Chunks, "filter-map": FilterMap} {
				got, err := Rowflow(t.Context(), data, part, shape)
				if err != nil || got != Want(n) {
					t.Errorf("%s, %d values, partitions of %d: %d, %v; want %d", name, n, part, got, err, Want(n))
				}
			}
		}
	}
}
