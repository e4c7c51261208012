package text

import (
	"context"
	"fmt"
	"sync"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources/parquet"
)

// csvColumns reads CSV records into column batches.
type csvColumns struct{}

// Bounds of the column batches of CSV: the columns of a header, and the
// fields of a batch, which bound its rows for wide files.
const (
	maxBatchColumns = 1 << 16
	maxBatchFields  = 1 << 20
)

func (csvColumns) files() dataset.Format { return csvFiles }
func (csvColumns) quoted() bool          { return true }

func (csvColumns) read(ctx context.Context, part *textPart, out *rowBuffer[*parquet.ColumnBatch]) error {
	c, err := openCSV(ctx, part)
	if err != nil {
		return err
	}
	if len(c.names) > maxBatchColumns {
		return fmt.Errorf("%s: the header has %d columns; column batches (CSV[*parquet.ColumnBatch]) take at most %d, records (CSV[sources.Record]) more",
			part.file.RelPath, len(c.names), maxBatchColumns)
	}
	rows := max(1, min(out.size, maxBatchFields/max(len(c.names), 1)))
	hive := part.file.Partition.Values()
	null := part.cfg.null
	text := pq.Optional(pq.String())
	var bufs *batchBufs
	push := func() error {
		if bufs == nil || len(bufs.ids) == 0 {
			return nil
		}
		b := parquet.NewColumnBatch(part.file.RelPath, flow.ListIDs(bufs.ids), bufs.cols, hive)
		linkage.ReleaseWith(b, bufs.release)
		bufs = nil
		return out.out.Push(ctx, flow.Chunk[*parquet.ColumnBatch]{Part: out.batch, IDs: flow.ListIDs([]rowid.ID{b.RowID(0)}), Values: []*parquet.ColumnBatch{b}})
	}
	err = c.each(ctx, func(rec []string, off int64, _ bool) error {
		if bufs == nil {
			bufs = newBatchBufs(c.names, text, rows)
		}
		cols := bufs.cols
		bufs.ids = append(bufs.ids, out.comb.Combine(rowid.Ordinal(part.ordinal(off, c.line))))
		for i, s := range rec {
			col := &cols[i]
			if s == null {
				col.DefLevels = append(col.DefLevels, 0)
				continue
			}
			col.DefLevels = append(col.DefLevels, 1)
			col.Bytes = append(col.Bytes, s...)
			col.Offsets = append(col.Offsets, uint32(len(col.Bytes)))
		}
		if len(bufs.ids) == rows {
			return push()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return push()
}

// batchBufs is the buffers of one column batch of CSV or JSON Lines: its
// columns and its rows' IDs. A consumer that releases the batch hands
// them back for a later batch, whose columns then grow no more than the
// longest batch's did; the batches of one that does not are garbage
// collected.
type batchBufs struct {
	cols []parquet.Column
	ids  []rowid.ID
}

// batchPool holds the buffers of released batches.
var batchPool sync.Pool

// newBatchBufs returns empty buffers for a batch of up to rows rows of
// the columns names, each of type node.
func newBatchBufs(names []string, node pq.Node, rows int) *batchBufs {
	b, _ := batchPool.Get().(*batchBufs)
	if b == nil {
		b = &batchBufs{ids: make([]rowid.ID, 0, rows)}
	}
	if cap(b.cols) < len(names) {
		b.cols = make([]parquet.Column, len(names))
	}
	b.cols = b.cols[:len(names)]
	for i, name := range names {
		c := &b.cols[i]
		*c = parquet.Column{Name: name, Node: node, Kind: pq.ByteArray, MaxDefinitionLevel: 1,
			Bytes: c.Bytes[:0], Offsets: append(c.Offsets[:0], 0), DefLevels: c.DefLevels[:0]}
	}
	b.ids = b.ids[:0]
	return b
}

// release hands the buffers back to batchPool.
func (b *batchBufs) release() { batchPool.Put(b) }
