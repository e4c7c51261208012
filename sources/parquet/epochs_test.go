package parquet_test

import (
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// A Parquet source repeats as the pipeline's Epochs say: partition
// numbers carry the epoch, fewer epochs give a prefix of more, and a
// Shuffle after the source reshuffles every epoch from the pipeline's
// epochs.
func TestParquetEpochsArePipelineEpochs(t *testing.T) {
	root, _ := hiveDataset(t)
	src := func() flow.Source[Hive] {
		return parquet.Read[Hive](root, parquet.MaxRows(64), sources.ShuffleWindow(5))
	}
	three := testutil.Items[Hive](t, flow.From(src()).WithSeed(3).Parallel(2).Epochs(3))
	if len(three) == 0 || len(three)%3 != 0 {
		t.Fatalf("Epochs(3): %d items, want three equal epochs", len(three))
	}
	per := len(three) / 3
	for i, it := range three {
		if it.Epoch() != int64(i/per) {
			t.Fatalf("item %d: partition %d is not in epoch %d", i, it.Part, i/per)
		}
	}
	if slices.EqualFunc(three[:per], three[per:2*per], func(a, b flow.Item[Hive]) bool { return a.ID == b.ID }) {
		t.Fatalf("ShuffleWindow over two epochs: both epochs in one order")
	}
	// The pipeline may change its count again.
	if got := testutil.Items[Hive](t, flow.From(src()).WithSeed(3).Epochs(3).Epochs(1)); !slices.Equal(got, three[:per]) {
		t.Fatalf("Epochs(1) after Epochs(3): %d items, want the first epoch's %d", len(got), per)
	}
	shuffled := testutil.Items[Hive](t, flow.From(src()).Epochs(2).Via(operators.Shuffle[Hive](50)))
	if len(shuffled) != 2*per || slices.EqualFunc(shuffled[:per], shuffled[per:], func(a, b flow.Item[Hive]) bool { return a.ID == b.ID }) {
		t.Fatalf("Shuffle over two epochs: %d items, or both epochs in one order", len(shuffled))
	}
}
