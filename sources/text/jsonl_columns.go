package text

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// jsonlColumns reads JSON Lines records into column batches.
type jsonlColumns struct{}

func (jsonlColumns) files() dataset.Format { return jsonlFiles }
func (jsonlColumns) quoted() bool          { return false }

// jsonCell is a value of a line, before the line is known to be good.
type jsonCell struct {
	col  int
	null bool
	kind byte // a kind of linkage.JSONInfo.Kinds
	text []byte
}

// jsonBatch builds one column batch of JSON Lines.
type jsonBatch struct {
	bufs  *batchBufs
	index map[string]int // the column of each key
	names []string       // the keys, by column: those of the batch's columns, then the line's new keys
	stamp []int64        // per column, the last line (counted from 1) with the key, to find a key twice
	cells []jsonCell     // the line's values
	text  []byte         // the line's strings that had escapes
	line  int64
	rows  int
}

func (jsonlColumns) read(ctx context.Context, part *textPart, out *rowBuffer[*parquet.ColumnBatch]) error {
	var (
		scan jsonScan
		keys keyScan
		rec  sources.Record
	)
	b := jsonBatch{index: map[string]int{}}
	hive := part.file.Partition.Values()
	push := func() error {
		if b.rows == 0 {
			return nil
		}
		cols := b.bufs.cols
		for k := range cols {
			b.nulls(k, b.rows)
		}
		batch := parquet.NewColumnBatch(part.file.RelPath, flow.ListIDs(b.bufs.ids), cols, hive)
		linkage.ReleaseWith(batch, b.bufs.release)
		b.bufs, b.rows, b.names = nil, 0, b.names[:0]
		clear(b.index)
		return out.out.Push(ctx, flow.Chunk[*parquet.ColumnBatch]{Part: out.batch, IDs: flow.ListIDs([]rowid.ID{batch.RowID(0)}), Values: []*parquet.ColumnBatch{batch}})
	}
	err := eachLine(ctx, part, func(line []byte, n, off int64) error {
		for {
			if b.bufs == nil {
				b.bufs = newBatchBufs(nil, nil, min(out.size, 1<<16))
			}
			b.line++
			if !jsonlFastPath || !b.scan(&scan, line) {
				b.rollback()
				rec = sources.Record{}
				if err := decodeObject(line, &rec, nil, &keys); err != nil {
					return part.bad(n, off, err)
				}
				if err := b.cellsOf(&rec); err != nil {
					return err
				}
			}
			cols := len(b.names)
			if cols-len(b.bufs.cols) > maxBatchColumns {
				return part.broken(n, off, fmt.Errorf("a line of more than %d keys; column batches (JSONL[*parquet.ColumnBatch]) take at most %d, records (JSONL[sources.Record]) more",
					maxBatchColumns, maxBatchColumns))
			}
			if b.rows > 0 && (cols > maxBatchColumns || (b.rows+1)*cols > maxBatchFields) {
				// The line goes to the next batch, where its keys have
				// other columns: read it again there.
				b.rollback()
				if err := push(); err != nil {
					return err
				}
				continue
			}
			b.bufs.ids = append(b.bufs.ids, out.comb.Combine(rowid.Ordinal(part.ordinal(off, n))))
			b.add()
			if b.rows == out.size {
				return push()
			}
			return nil
		}
	})
	if err != nil {
		return err
	}
	return push()
}

// scan reads the JSON object line into b.cells, as jsonScan.record reads
// a record, and reports whether it did: not if the line has anything the
// fast path does not take, such as a key twice or an escape in a key,
// which decodeObject then reads.
func (b *jsonBatch) scan(s *jsonScan, line []byte) bool {
	b.cells, b.text = b.cells[:0], b.text[:0]
	return s.members(line, func(key []byte, i int) (int, bool) {
		col := b.column(key)
		if b.stamp[col] == b.line {
			return 0, false // a key twice
		}
		b.stamp[col] = b.line
		c := jsonCell{col: col}
		var j int
		ok := true
		switch line[i] {
		case '"':
			var str []byte
			if str, j, ok = s.str(line, i); ok && len(str) > 0 && len(s.buf) > 0 && &str[0] == &s.buf[0] {
				// Unescaped into s.buf, which the next such string
				// takes: keep a copy until the line is added.
				k := len(b.text)
				b.text = append(b.text, str...)
				str = b.text[k:]
			}
			c.kind, c.text = linkage.JSONString, str
		case 't', 'f':
			c.kind = linkage.JSONBool
			j, ok = literal(line, i)
		case 'n':
			c.null = true
			j, ok = literal(line, i)
		case '{', '[':
			c.kind = linkage.JSONNested
			j, ok = s.skip(line, i)
		default:
			c.kind = linkage.JSONNumber
			j, _, ok = number(line, i)
		}
		if !ok {
			return 0, false
		}
		if c.text == nil && !c.null {
			c.text = line[i:j]
		}
		b.cells = append(b.cells, c)
		return j, true
	})
}

// cellsOf puts the values of r, a record that decodeObject read, in
// b.cells.
func (b *jsonBatch) cellsOf(r *sources.Record) error {
	b.cells = b.cells[:0]
	for k, name := range r.Names {
		c := jsonCell{col: b.column([]byte(name))}
		switch v := r.Values[k].(type) {
		case nil:
			c.null = true
		case string:
			c.kind, c.text = linkage.JSONString, []byte(v)
		case json.Number:
			c.kind, c.text = linkage.JSONNumber, []byte(v)
		case bool:
			c.kind, c.text = linkage.JSONBool, strconv.AppendBool(nil, v)
		default:
			t, err := json.Marshal(v)
			if err != nil {
				return err
			}
			c.kind, c.text = linkage.JSONNested, t
		}
		b.cells = append(b.cells, c)
	}
	return nil
}

// column returns the index of key's column: one of the batch's, or, from
// len(b.bufs.cols) on, one that the line adds.
func (b *jsonBatch) column(key []byte) int {
	if k, ok := b.index[string(key)]; ok {
		return k
	}
	k := len(b.names)
	b.index[string(key)] = k
	b.names = append(b.names, string(key))
	if k == len(b.stamp) {
		b.stamp = append(b.stamp, 0)
	}
	b.stamp[k] = 0
	return k
}

// rollback forgets the keys that the line added.
func (b *jsonBatch) rollback() {
	for _, key := range b.names[len(b.bufs.cols):] {
		delete(b.index, key)
	}
	b.names = b.names[:len(b.bufs.cols)]
}

// add appends the line's values to the columns, as the batch's next row.
func (b *jsonBatch) add() {
	for len(b.bufs.cols) < len(b.names) {
		b.addColumn()
	}
	for _, c := range b.cells {
		b.nulls(c.col, b.rows)
		col := &b.bufs.cols[c.col]
		if c.null {
			col.DefLevels = append(col.DefLevels, 0)
			info := linkage.JSONColumn(col)
			info.Nulls = append(info.Nulls, b.rows)
			continue
		}
		col.DefLevels = append(col.DefLevels, 1)
		col.Bytes = append(col.Bytes, c.text...)
		col.Offsets = append(col.Offsets, uint32(len(col.Bytes)))
		if kinds := &linkage.JSONColumn(col).Kinds; c.kind != linkage.JSONString || len(*kinds) > 0 {
			if len(*kinds) == 0 {
				*kinds = append(*kinds, make([]byte, len(col.Offsets)-2)...) // the strings before it
			}
			*kinds = append(*kinds, c.kind)
		}
	}
	b.rows++
}

// addColumn adds the column of the next of b.names, null in the rows
// before.
func (b *jsonBatch) addColumn() {
	k := len(b.bufs.cols)
	cols := b.bufs.cols
	if k < cap(cols) {
		cols = cols[:k+1]
	} else {
		cols = append(cols, parquet.Column{})
	}
	c := &cols[k]
	old := *linkage.JSONColumn(c)
	*c = parquet.Column{Name: b.names[k], Node: jsonText, Kind: pq.ByteArray, MaxDefinitionLevel: 1,
		Bytes: c.Bytes[:0], Offsets: append(c.Offsets[:0], 0), DefLevels: c.DefLevels[:0]}
	*linkage.JSONColumn(c) = linkage.JSONInfo{JSON: true, Kinds: old.Kinds[:0], First: b.rows, Nulls: old.Nulls[:0]}
	b.bufs.cols = cols
}

// nulls makes column k null in the rows before row.
func (b *jsonBatch) nulls(k, row int) {
	c := &b.bufs.cols[k]
	for len(c.DefLevels) < row {
		c.DefLevels = append(c.DefLevels, 0)
	}
}

// jsonText is the type of the columns of JSON Lines batches.
var jsonText = pq.Optional(pq.String())
