package flow

import (
	"context"

	"github.com/rowflow/rowflow/rowid"
)

// RowLocator is implemented by a source that can tell where a row it gave
// lies in its input. When a run fails with a [StageError] that names a
// partition and a row ID (an error of a stage or sink downstream, which
// knows the row but not where it was read), the run asks its source, and
// the error's Where holds the answer, such as "b.parquet, row 12".
//
// LocateRow is called only then, once per failed run (or per cursor
// that ends with the error), with the run's Env; it may read the input
// again. It reports false if the row is not one of partition part's, as
// when a stage between the source and the failing one numbered its output
// partitions anew, or if it cannot tell.
type RowLocator interface {
	LocateRow(ctx context.Context, env Env, part int64, id rowid.ID) (where string, ok bool)
}

// located returns err with the location of its row, if err is a
// StageError naming a partition and a row ID and the pipeline's source
// can locate the row; otherwise err itself.
func (p *Pipeline) located(ctx context.Context, env Env, err error) error {
	se, ok := err.(*StageError)
	if !ok || !se.HasPart || !se.HasID || se.Where != "" {
		return err
	}
	l := p.src.locator()
	if l == nil {
		return err
	}
	where, ok := l.LocateRow(context.WithoutCancel(ctx), env, se.Part, se.ID)
	if !ok {
		return err
	}
	c := *se
	c.Where = where
	return &c
}
