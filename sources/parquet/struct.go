package parquet

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// structFormat decodes rows into structs T through internal/parquet/assemble.
type structFormat[T any] struct{}

type structPlan[T any] struct{ p *assemble.Plan[T] }

// check refuses Columns names that no field of T reads.
func (structFormat[T]) check(cfg *parquetConfig) error {
	names := assemble.ColumnNames[T]()
	if names == nil {
		return nil // not a struct: the plan reports it
	}
	for _, c := range cfg.columns {
		if !slices.Contains(names, c) {
			return fmt.Errorf("sources: Columns(%q): no field of %v reads a column of that name (they read %s)",
				c, reflect.TypeFor[T](), strings.Join(names, ", "))
		}
	}
	return nil
}

func (structFormat[T]) plan(file dataset.File, r *pqcol.Reader, cfg *parquetConfig) (filePlan[T], error) {
	var consts []assemble.Const
	for _, fld := range hiveColumns(file.Partition, cfg.rename) {
		consts = append(consts, assemble.Const{Name: fld.Name, Kind: assemble.ConstString, Value: fld.Value, Null: fld.Null})
	}
	if cfg.trace {
		consts = append(consts, assemble.Const{Name: "__file", Kind: assemble.ConstFile},
			assemble.Const{Name: "__row_group", Kind: assemble.ConstRowGroup},
			assemble.Const{Name: "__row_index", Kind: assemble.ConstRow})
	}
	if err := checkRename(file, r.Leaves(), cfg.rename, false); err != nil {
		return nil, err
	}
	p, err := assemble.NewPlan[T](file.Path, r.Leaves(), r.File().Root(), cfg.rename, cfg.selected(), consts)
	if err != nil {
		return nil, err
	}
	return structPlan[T]{p}, nil
}

func (p structPlan[T]) leaves() []int { return p.p.Leaves() }

func (p structPlan[T]) newReader() fragmentReader[T] {
	return structReader[T]{assemble.NewDecoder(p.p)}
}

type structReader[T any] struct{ d *assemble.Decoder[T] }

func (r structReader[T]) emit(ctx context.Context, sp span, cols *columnSet, last bool, out flow.Emitter[T]) (bool, error) {
	return false, r.emitRows(ctx, sp, cols, last, out)
}

func (r structReader[T]) emitRows(ctx context.Context, sp span, cols *columnSet, last bool, out flow.Emitter[T]) error {
	r.d.Columns = cols.set
	defer func() { r.d.Columns = nil }()
	r.d.Reset()
	if sp.from == sp.to {
		return pushEnd(ctx, sp, last, out)
	}
	if sp.keep != nil {
		return r.emitKept(ctx, sp, last, out)
	}
	chunk := int64(sp.chunk)
	for row := sp.from; row < sp.to; row += chunk {
		m := min(chunk, sp.to-row)
		first := sp.first + (row - sp.from)
		c := flow.Chunk[T]{Part: sp.batch, IDs: flow.OrdinalIDs(sp.id, uint64(first), int(m)),
			Values: slicepool.Alloc[T](int(m))[:m], End: last && row+m == sp.to}
		pos := assemble.Pos{Path: sp.path, File: sp.file, RowGroup: sp.rg, FirstRow: first}
		if err := r.d.Next(c.Values, &pos); err != nil {
			c.Release()
			return err
		}
		if err := out.Push(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// pushEnd pushes the End chunk of an empty span that ends its fragment.
func pushEnd[T any](ctx context.Context, sp span, last bool, out flow.Emitter[T]) error {
	if !last {
		return nil
	}
	return out.Push(ctx, flow.Chunk[T]{Part: sp.batch, End: true})
}
