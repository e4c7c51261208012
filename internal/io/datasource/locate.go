package datasource

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/rowid"
)

// LocateIn finds the row id of partition part of plan, for a source's
// LocateRow: "file, row n", n being the row's ordinal in its file. It
// looks for the ordinal among the fragment's [FirstRow, FirstRow+Rows),
// or among those span returns for it if span is not nil; where, if not
// nil, says where in the file the row with ordinal o is ("byte 812"), or
// false if it cannot tell.
func LocateIn(ctx context.Context, plan *dataset.Plan, part int64, id rowid.ID,
	span func(dataset.Fragment) (lo, hi int64), where func(fr dataset.Fragment, o int64) (string, bool)) (string, bool) {
	fr, ok := fragmentOf(ctx, plan, part)
	if !ok {
		return "", false
	}
	lo, hi := fr.FirstRow, fr.FirstRow+fr.Rows()
	if span != nil {
		lo, hi = span(fr)
	}
	o, ok := findOrdinal(rowid.FromString(fr.Path), id, lo, hi)
	if !ok {
		return "", false
	}
	at := fmt.Sprintf("row %d", o)
	if where != nil {
		if at, ok = where(fr, o); !ok {
			return "", false
		}
	}
	return fr.Path + ", " + at, true
}

// fragmentOf returns the fragment of plan that a run numbers part.
func fragmentOf(ctx context.Context, plan *dataset.Plan, part int64) (dataset.Fragment, bool) {
	index := epoch.Partition(part)
	for fr, err := range plan.Epoch(ctx, epoch.Of(part)) {
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
