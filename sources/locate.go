package sources

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/dataset"
	"github.com/rowflow/rowflow/rowid"
)

// fragmentOf returns the fragment of plan that a run numbers part.
func fragmentOf(ctx context.Context, plan *dataset.Plan, part int64) (dataset.Fragment, bool) {
	index := flow.PartitionOf(part)
	for fr, err := range plan.Epoch(ctx, flow.EpochOf(part)) {
		if err != nil {
			break
		}
		if fr.Index == index {
			return fr, true
		}
	}
	return dataset.Fragment{}, false
}

// findOrdinal returns the ordinal o in [lo, hi) whose row ID in the file
// whose ID is file, rowid.Ordinal(o).Combine(file), is id.
func findOrdinal(file, id rowid.ID, lo, hi int64) (int64, bool) {
	c := rowid.NewCombiner(file)
	for o := lo; o < hi; o++ {
		if c.Combine(rowid.Ordinal(uint64(o))) == id {
			return o, true
		}
	}
	return 0, false
}
