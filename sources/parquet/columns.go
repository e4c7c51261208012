package parquet

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	pq "github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/rowid"
)

// ColumnBatch is rows [FirstRow, FirstRow+NumRows) of one row group of one
// file, column by column: what Read[*ColumnBatch] gives. The batch owns
// its slices.
type ColumnBatch struct {
	File     string // path relative to the dataset root
	RowGroup int    // -1 for a batch of NewColumnBatch
	FirstRow int64  // the file ordinal of the batch's first row
	NumRows  int
	Columns  []Column
	// Partition holds the file's Hive partition values, by their names
	// after [Rename]: all of them, or those that [Columns] names. A null
	// value (Hive's default partition, __HIVE_DEFAULT_PARTITION__) is
	// absent; an empty one is "".
	Partition map[string]string
	// Keep marks the rows that the source's [RowFilter] keeps: row i is
	// kept when Keep[i] is true. It is nil when every row is kept (and
	// always without a RowFilter). The rows it does not keep are still in
	// the columns; [ColumnBatch.Kept] tests a row either way.
	Keep []bool

	file    rowid.Combiner // combines a row's ordinal with the file's ID
	ids     flow.IDs       // the rows' IDs, for a batch of NewColumnBatch
	release func()         // hands the buffers the columns are in back to their source
}

// NewColumnBatch returns a batch of the rows whose IDs are ids, one per
// row, held in columns, which the batch takes: what another source (such
// as sources/text.CSV and JSONL of *ColumnBatch) gives to consumers of
// column batches, such as shards.Parquet. file names the rows' file in
// errors, and partition holds its Hive partition values, as Read's
// batches do.
// Each column must hold ids.Len() rows as [Column] says, with its Kind,
// levels and RepeatedLevels set, and its Node where the logical type
// matters: a BYTE_ARRAY column whose Node is a STRING holds text, which
// shards.Parquet converts to its column's type. Release does
// nothing, unless the source that made the batch reuses its buffers.
func NewColumnBatch(file string, ids flow.IDs, columns []Column, partition map[string]string) *ColumnBatch {
	return &ColumnBatch{File: file, RowGroup: -1, NumRows: ids.Len(), Columns: columns, Partition: partition, ids: ids}
}

// Release hands the batch's buffers back to the source, which reuses them
// for later batches of the same run: reading then allocates almost
// nothing. The batch and its columns must not be used afterwards. A batch
// that is not released is simply garbage collected.
func (b *ColumnBatch) Release() {
	if b.release != nil {
		b.release()
	}
	b.release, b.Columns = nil, nil
}

func init() {
	linkage.ReleaseWith = func(b any, f func()) { b.(*ColumnBatch).release = f }
	linkage.JSONColumn = func(c any) *linkage.JSONInfo { return &c.(*Column).json }
}

// RowID returns the row ID of row i of the batch.
func (b *ColumnBatch) RowID(i int) rowid.ID {
	if b.ids.Len() > 0 {
		return b.ids.At(i)
	}
	return b.file.Combine(rowid.Ordinal(uint64(b.FirstRow) + uint64(i)))
}

// Kept reports whether row i is one the source's [RowFilter] keeps.
func (b *ColumnBatch) Kept(i int) bool { return b.Keep == nil || b.Keep[i] }

// Column returns the column with the given name, or nil.
func (b *ColumnBatch) Column(name string) *Column {
	for i := range b.Columns {
		if b.Columns[i].Name == name {
			return &b.Columns[i]
		}
	}
	return nil
}

// Column is one leaf column of a [ColumnBatch]. Values are dense: only
// non-null values are stored, in the one slice that matches Kind.
// BYTE_ARRAY value i is Bytes[Offsets[i]:Offsets[i+1]]; FIXED_LEN_BYTE_ARRAY
// value i is Bytes[i*TypeLength:(i+1)*TypeLength]. DefLevels (when
// MaxDefinitionLevel > 0) holds a level per entry, an entry holding a
// value when its level is the maximum; RepLevels (when MaxRepetitionLevel >
// 0) starts a new row at each 0. Logical types are not applied: Node has
// them.
type Column struct {
	Name               string // the user name: the dotted path, after Rename
	Node               pq.Node
	Kind               pq.Kind
	TypeLength         int
	MaxDefinitionLevel int
	MaxRepetitionLevel int
	// RepeatedLevels holds, for each repeated field on the column's path
	// (outermost first, one per repetition level), the definition level
	// from which that field has an element. An entry whose definition
	// level is lower than RepeatedLevels[r] has no element at depth r: the
	// list there is empty if the level is RepeatedLevels[r]-1, and null
	// (an optional field above it is not defined) if lower. An entry
	// between the last repeated level and the maximum is a null element.
	RepeatedLevels []int
	// Unsigned says that Int32 or Int64 hold the bits of unsigned integers
	// (an INT32 or INT64 column whose logical type is unsigned): read them
	// with uint32() or uint64().
	Unsigned bool

	Boolean []bool
	Int32   []int32
	Int64   []int64
	Float   []float32
	Double  []float64
	Bytes   []byte
	Offsets []uint32
	// Int96 values are 12 bytes each, in Bytes.

	DefLevels []byte
	RepLevels []byte

	// json is what a column of a JSON Lines batch knows beyond its text
	// (see linkage.JSONColumn).
	json linkage.JSONInfo
}

// Len returns the number of non-null values.
func (c *Column) Len() int {
	switch c.Kind {
	case pq.Boolean:
		return len(c.Boolean)
	case pq.Int32:
		return len(c.Int32)
	case pq.Int64:
		return len(c.Int64)
	case pq.Float:
		return len(c.Float)
	case pq.Double:
		return len(c.Double)
	case pq.ByteArray:
		return max(len(c.Offsets)-1, 0)
	case pq.FixedLenByteArray:
		if c.TypeLength > 0 {
			return len(c.Bytes) / c.TypeLength
		}
	case pq.Int96:
		return len(c.Bytes) / 12
	}
	return 0
}

// columnsFormat reads rows as column batches: Read[*ColumnBatch].
type columnsFormat struct{}

type columnsPlan struct {
	idx   []int    // the leaf columns read, in the order returned
	names []string // their names
	info  []pqcol.Leaf
	hive  dataset.Partition // the Hive columns returned, by their names, in order
	// pos holds the place of each column among those returned: of the
	// leaf columns, then of the Hive columns.
	pos []int
}

// check has nothing to check before a file gives the columns.
func (columnsFormat) check(*parquetConfig) error { return nil }

// plan selects the columns that [Columns] names, in the order named, or
// all: the file's, then the Hive columns.
func (columnsFormat) plan(file dataset.File, r *pqcol.Reader, cfg *parquetConfig) (filePlan[*ColumnBatch], error) {
	if err := checkRename(file, r.Leaves(), cfg.rename, true); err != nil {
		return nil, err
	}
	user := map[string]string{} // raw name -> user name; checkRename allows one
	for u, raw := range cfg.rename {
		user[raw] = u
	}
	names := make([]string, len(r.Leaves()))
	for i, leaf := range r.Leaves() {
		names[i] = leaf.PathString()
		if u, ok := user[names[i]]; ok {
			names[i] = u
		}
	}
	hive := hiveColumns(file.Partition, cfg.rename)
	p := &columnsPlan{}
	var hivePos []int
	addLeaf := func(i int) {
		p.pos = append(p.pos, len(p.pos)+len(hivePos))
		p.idx, p.names, p.info = append(p.idx, i), append(p.names, names[i]), append(p.info, r.Leaves()[i])
	}
	addHive := func(f dataset.Field) {
		hivePos = append(hivePos, len(p.pos)+len(hivePos))
		p.hive = append(p.hive, f)
	}
	if cfg.columns == nil {
		for i := range names {
			addLeaf(i)
		}
		for _, f := range hive {
			addHive(f)
		}
	}
	for _, name := range cfg.columns {
		i := slices.Index(names, name)
		if i >= 0 {
			addLeaf(i)
		}
		j := slices.IndexFunc(hive, func(f dataset.Field) bool { return f.Name == name })
		if j >= 0 {
			addHive(hive[j])
		}
		if i < 0 && j < 0 {
			return nil, fmt.Errorf("sources: %s has no column %q (columns: %s)", file.Path, name, columnList(r.Leaves(), file.Partition))
		}
	}
	p.pos = append(p.pos, hivePos...)
	return p, nil
}

func (p *columnsPlan) leaves() []int { return p.idx }

func (p *columnsPlan) newReader() fragmentReader[*ColumnBatch] {
	return &columnsReader{p: p}
}

type columnsReader struct {
	p *columnsPlan
}

// emit hands the decoded columns to a batch: the batch owns them until
// its Release hands them back for later reads.
func (r *columnsReader) emit(ctx context.Context, sp span, cols *columnSet, last bool, out flow.Emitter[*ColumnBatch]) (bool, error) {
	if sp.from == sp.to {
		return false, pushEnd(ctx, sp, last, out)
	}
	b := &ColumnBatch{File: sp.file, RowGroup: sp.rg, FirstRow: sp.first, NumRows: int(sp.to - sp.from),
		Columns: make([]Column, len(cols.set)), Keep: slices.Clone(sp.keep), file: rowid.NewCombiner(sp.id),
		release: func() { sp.recycle(cols) }}
	b.Partition = r.p.hive.Values()
	for i := range cols.set {
		c, leaf := &cols.set[i], &r.p.info[i]
		b.Columns[i] = Column{Name: r.p.names[i], Node: leaf.Node, Kind: leaf.Kind, TypeLength: leaf.TypeLength,
			MaxDefinitionLevel: leaf.MaxDefinitionLevel, MaxRepetitionLevel: leaf.MaxRepetitionLevel, RepeatedLevels: leaf.RepeatedLevels, Unsigned: assemble.Unsigned(leaf),
			Boolean: c.Boolean, Int32: c.Int32, Int64: c.Int64, Float: c.Float, Double: c.Double,
			Bytes: c.Bytes, Offsets: c.Offsets, DefLevels: c.DefLevels, RepLevels: c.RepLevels}
		if leaf.Kind == pq.Int96 {
			b.Columns[i].Bytes = int96Bytes(c)
		}
	}
	ids := flow.OrdinalIDs(sp.id, uint64(sp.first), 1)
	return true, out.Push(ctx, flow.Chunk[*ColumnBatch]{Part: sp.batch, IDs: ids, Values: []*ColumnBatch{b}, End: last})
}

func int96Bytes(c *pqcol.Column) []byte {
	out := make([]byte, 0, 12*len(c.Int96))
	for _, v := range c.Int96 {
		for _, w := range v {
			out = append(out, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
	}
	return out
}

// checkRename returns an error naming the file and the column if rename
// (user name to raw name) would do nothing or lose a column: if a raw
// name is neither a column of the file nor one of its Hive partition
// columns, or if a user name is that of another column, of the file or a
// Hive column, that no rename renames. Column batches and records (one)
// take one name per column: they refuse every such clash, and two names
// for one column. Structs, whose fields pick their columns, refuse only
// the clashes that a Hive column takes part in, and find a LIST by the
// name of its group too (its leaf being name.list.element, or the legacy
// name.list.item).
func checkRename(file dataset.File, leaves []pqcol.Leaf, rename map[string]string, one bool) error {
	isLeaf := func(name string, lists bool) bool {
		return slices.ContainsFunc(leaves, func(l pqcol.Leaf) bool {
			p := l.PathString()
			return p == name || lists && (p == name+".list.element" || p == name+".list.item")
		})
	}
	users := slices.Sorted(maps.Keys(rename))
	renamed := map[string]string{} // raw name -> its first user name
	for _, user := range users {
		raw := rename[user]
		if other, ok := renamed[raw]; ok && one {
			return fmt.Errorf("sources: %s: Rename gives column %q two names, %q and %q; column batches and records take one",
				file.Path, raw, other, user)
		} else if !ok {
			renamed[raw] = user
		}
		if _, hive := file.Partition.Get(raw); !hive && !isLeaf(raw, !one) {
			return fmt.Errorf("sources: %s: Rename(%q, %q): the file has no column %q (columns: %s)",
				file.Path, raw, user, raw, columnList(leaves, file.Partition))
		}
	}
	for _, user := range users {
		raw := rename[user]
		if _, ok := renamed[user]; ok {
			continue // the column of that name takes another
		}
		_, hiveUser := file.Partition.Get(user)
		_, hiveRaw := file.Partition.Get(raw)
		switch {
		case hiveUser:
			return fmt.Errorf("sources: %s: Rename(%q, %q): the dataset already has a Hive partition column %q; rename that one too, or choose another name",
				file.Path, raw, user, user)
		case (one || hiveRaw) && isLeaf(user, false):
			return fmt.Errorf("sources: %s: Rename(%q, %q): the file already has a column %q; rename that one too, or choose another name",
				file.Path, raw, user, user)
		}
	}
	return nil
}

// columnList lists a file's columns and its Hive partition columns, for
// errors.
func columnList(leaves []pqcol.Leaf, part dataset.Partition) string {
	names := make([]string, len(leaves))
	for i, leaf := range leaves {
		names[i] = leaf.PathString()
	}
	list := strings.Join(names, ", ")
	if len(part) > 0 {
		names = names[:0]
		for _, f := range part {
			names = append(names, f.Name)
		}
		list += "; Hive partition columns: " + strings.Join(names, ", ")
	}
	return list
}
