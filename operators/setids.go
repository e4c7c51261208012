package operators

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// SetIDs returns a stage that gives each row the ID id(v) of its value,
// keeping values, partitions and order. It is how a dataset written with
// shards.RowIDColumn gets back the IDs the job gave its rows when it is
// read again: read the row-ID columns into the row type and return
// shards.RowID(r.Key1, r.Key2, r.Ord) (rowid.ID{Hi: r.Hi, Lo: r.Lo} for
// the two columns of CSV and JSON Lines files). Two outputs of one job,
// written with other shard sizes or by other ranks, can then be compared
// row by row with determinism.CompareByID, once a Map has left the row-ID
// columns out of the values: a file's row-ID columns encode the IDs of its
// own rows, so one ID can have other column values in another file.
//
// The IDs are the function's: the rule that IDs are unique within a
// stream holds only if id gives distinct IDs.
func SetIDs[T any](id func(T) rowid.ID) flow.Stage {
	return flow.NewStage[T, T](setIDsOp[T]{id: id})
}

type setIDsOp[T any] struct{ id func(T) rowid.ID }

func (setIDsOp[T]) Info() flow.Info { return flow.Info{Name: "set-ids", OneToOne: true} }

// Err reports a nil function.
func (s setIDsOp[T]) Err() error { return nilFunc("SetIDs", s.id == nil) }

func (o setIDsOp[T]) NewProcessor(flow.Env) flow.Processor[T, T] { return setIDsProc[T](o) }

type setIDsProc[T any] struct{ id func(T) rowid.ID }

func (p setIDsProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	ids := slicepool.Alloc[rowid.ID](len(c.Values))[:len(c.Values)]
	for k, v := range c.Values {
		ids[k] = p.id(v)
	}
	c.IDs = flow.ListIDs(ids)
	return out.Push(ctx, c)
}

func (setIDsProc[T]) Flush(context.Context, flow.Emitter[T]) error { return nil }
