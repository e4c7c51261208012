package sources_test

import (
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// The source's Epochs option is the pipeline's Epochs: the same items,
// partition numbers carrying the epoch, and a Shuffle after the source that
// reshuffles every epoch from the pipeline's epochs.
func TestParquetEpochsArePipelineEpochs(t *testing.T) {
	root, _ := hiveDataset(t)
	src := func(opts ...sources.ParquetOption) flow.Source[Hive] {
		return sources.Parquet[Hive](root, append(opts, sources.MaxRows(64), sources.ShuffleWindow(5), sources.Seed(3))...)
	}
	byOption := testutil.Items[Hive](t, flow.From(src(sources.Epochs(3))).Parallel(2))
	byPipeline := testutil.Items[Hive](t, flow.From(src()).Parallel(2).Epochs(3))
	if !slices.Equal(byOption, byPipeline) || len(byOption) == 0 {
		t.Fatalf("Epochs(3) option: %d items; pipeline Epochs(3): %d items, or they differ", len(byOption), len(byPipeline))
	}
	per := len(byOption) / 3
	for i, it := range byOption {
		if it.Epoch() != int64(i/per) {
			t.Fatalf("item %d: partition %d is not in epoch %d", i, it.Part, i/per)
		}
	}
	// The pipeline may change the count the option set.
	if got := testutil.Items[Hive](t, flow.From(src(sources.Epochs(3))).Epochs(1)); !slices.Equal(got, byOption[:per]) {
		t.Fatalf("Epochs(1) after the option: %d items, want the first epoch's %d", len(got), per)
	}
	shuffled := testutil.Items[Hive](t, flow.From(src(sources.Epochs(2))).Via(operators.Shuffle[Hive](50)))
	if len(shuffled) != 2*per || slices.EqualFunc(shuffled[:per], shuffled[per:], func(a, b flow.Item[Hive]) bool { return a.ID == b.ID }) {
		t.Fatalf("Shuffle over two epochs: %d items, or both epochs in one order", len(shuffled))
	}
}
