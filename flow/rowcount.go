package flow

import "context"

// RowCounter is implemented by sources that can tell how many rows each of
// their partitions holds without reading the rows: a slice knows its
// length, a Parquet dataset reads its footers. Stages that must know the
// total before the first row, such as operators.EvenRanks, ask for it.
//
// RowCounts returns the row count of every partition that Partitions
// yields for the same env, in the same order. A source that cannot know
// its counts without reading (a Parquet dataset with a row filter, say)
// returns an error that says why. ctx is a run's context, so a source
// may release what it opens to count with [AtEnd].
type RowCounter interface {
	RowCounts(ctx context.Context, env Env) ([]int64, error)
}
