package text

import (
	"context"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/dataset"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources/parquet"
)

// CSVColumns returns a source of the records of a CSV dataset as column
// batches ([parquet.ColumnBatch]), for consumers of tables such as
// shards.ParquetColumns, which parses the text into a schema's types as
// shards.ParquetRecords parses [CSVRecords]' strings, without a record
// per row. A batch holds up to [sources.ChunkSize] records of one
// partition; each column of the header is an optional STRING column
// (BYTE_ARRAY) holding the fields' text, with a null where a field is
// the [NullString]; the Hive partition values are in the batch's
// Partition, as in sources/parquet.ReadColumns' batches. Each row has the ID that CSVRecords gives its record. It
// reads the files as [CSV] does and takes the same options.
func CSVColumns(root string, opts ...CSVOption) flow.Source[*parquet.ColumnBatch] {
	c, err := buildText("csv", opts, CSVOption.ApplyCSV)
	return &textSource[*parquet.ColumnBatch]{root: root, cfg: c, err: err, format: csvColumns{}}
}

// csvColumns reads CSV records into column batches.
type csvColumns struct{}

func (csvColumns) files() dataset.Format { return csvFiles }
func (csvColumns) quoted() bool          { return true }

func (csvColumns) read(ctx context.Context, part *textPart, out *rowBuffer[*parquet.ColumnBatch]) error {
	c, err := openCSV(ctx, part)
	if err != nil {
		return err
	}
	var hive map[string]string
	if len(part.file.Partition) > 0 {
		hive = map[string]string{}
		for _, f := range part.file.Partition {
			if !f.Null {
				hive[f.Name] = f.Value
			}
		}
	}
	null := part.cfg.null
	var cols []parquet.Column
	var ids []rowid.ID
	push := func() error {
		if len(ids) == 0 {
			return nil
		}
		b := parquet.NewColumnBatch(part.file.RelPath, flow.ListIDs(ids), cols, hive)
		cols, ids = nil, nil
		return out.out.Push(ctx, flow.Chunk[*parquet.ColumnBatch]{Part: out.batch, IDs: flow.ListIDs([]rowid.ID{b.RowID(0)}), Values: []*parquet.ColumnBatch{b}})
	}
	err = c.each(ctx, func(rec []string, off int64, _ bool) error {
		if cols == nil {
			cols = make([]parquet.Column, len(c.names))
			for i, name := range c.names {
				cols[i] = parquet.Column{Name: name, Node: pq.Optional(pq.String()), Kind: pq.ByteArray, MaxDefinitionLevel: 1,
					Offsets: make([]uint32, 1, out.size+1), DefLevels: make([]byte, 0, out.size)}
			}
			ids = make([]rowid.ID, 0, out.size)
		}
		ids = append(ids, out.comb.Combine(rowid.Ordinal(uint64(part.from+off))))
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
		if len(ids) == out.size {
			return push()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return push()
}
