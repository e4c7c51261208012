package parquet

import (
	"context"
	"fmt"
	"slices"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/chunkmem"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/sources"

	"github.com/rowflow/rowflow/internal/parquet/pqschema"
)

// recordsFormat reads rows as [sources.Record]s: Read[sources.Record].
type recordsFormat struct{}

type recordsPlan struct {
	cols   *columnsPlan
	names  []string // in the order of cols.pos, then the trace columns
	consts []any    // values of the Hive columns, in the order of cols.hive (nil: null)
	trace  bool     // __file, __row_group, __row_index follow
	str    []bool   // per column: BYTE_ARRAY read as string
	repDef [][]int  // per column: definition levels of its repeated ancestors, outermost first
}

// check has nothing to check before a file gives the columns.
func (recordsFormat) check(*parquetConfig) error { return nil }

func (recordsFormat) plan(file dataset.File, r *pqcol.Reader, cfg *parquetConfig) (filePlan[sources.Record], error) {
	cp, err := columnsFormat{}.plan(file, r, cfg)
	if err != nil {
		return nil, err
	}
	p := &recordsPlan{cols: cp.(*columnsPlan), trace: cfg.trace}
	p.names = make([]string, len(p.cols.pos), len(p.cols.pos)+3)
	for j, name := range p.cols.names {
		p.names[p.cols.pos[j]] = name
	}
	for ci, f := range p.cols.hive {
		p.names[p.cols.pos[len(p.cols.names)+ci]] = f.Name
		p.consts = append(p.consts, f.RecordValue())
	}
	for _, leaf := range p.cols.info {
		p.str = append(p.str, pqschema.IsText(leaf.Node.Type()))
		var defs []int
		if leaf.MaxRepetitionLevel > 0 {
			defs = repeatedLevels(r.File().Root(), leaf.Path)
			if len(defs) != leaf.MaxRepetitionLevel {
				return nil, fmt.Errorf("sources: %s: column %q: the schema path has %d repeated fields, the column %d levels of repetition",
					file.Path, leaf.PathString(), len(defs), leaf.MaxRepetitionLevel)
			}
		}
		p.repDef = append(p.repDef, defs)
	}
	if cfg.trace {
		p.names = append(p.names, "__file", "__row_group", "__row_index")
	}
	return p, nil
}

// repeatedLevels returns, for each repeated node on path from the root
// down, the definition level at which it is present: the level from which
// its list has an element. The repetition level of the i-th (from 0) is
// i+1.
func repeatedLevels(root *pq.Column, path []string) []int {
	def := 0
	var reps []int
	c := root
	for _, name := range path {
		if c = c.Column(name); c == nil {
			return reps
		}
		if c.Optional() || c.Repeated() {
			def++
		}
		if c.Repeated() {
			reps = append(reps, def)
		}
	}
	return reps
}

func (p *recordsPlan) leaves() []int { return p.cols.idx }

func (p *recordsPlan) newReader() fragmentReader[sources.Record] {
	return &recordsReader{p: p}
}

type recordsReader struct {
	p    *recordsPlan
	cols []pqcol.Column  // the span's columns, during emit
	curs []fillCursor    // per column, during emit
	mem  chunkmem.Memory // what the records' values keep
	tmp  [][]any         // the lists being built, per depth
}

func (r *recordsReader) emit(ctx context.Context, sp span, cols *columnSet, last bool, out flow.Emitter[sources.Record]) (bool, error) {
	return false, r.emitRows(ctx, sp, cols, last, out)
}

func (r *recordsReader) emitRows(ctx context.Context, sp span, cols *columnSet, last bool, out flow.Emitter[sources.Record]) error {
	r.cols = cols.set
	defer func() { r.cols = nil }()
	if sp.from == sp.to {
		return pushEnd(ctx, sp, last, out)
	}
	n := int(sp.to - sp.from)
	rows := keptRows(sp.keep, n) // the span rows of the records; nil: all
	m := n
	if rows != nil {
		m = len(rows)
	}
	// The records are built a chunk at a time, each column resuming where
	// the last chunk left it: a span is a whole row group, and its
	// records, boxed value by value, would take many times the memory of
	// its decoded columns.
	r.curs = slices.Grow(r.curs[:0], len(r.cols))[:len(r.cols)]
	for j := range r.cols {
		r.curs[j] = r.cursor(j)
	}
	names := r.p.names
	k := len(r.cols)
	for lo := 0; lo < m; lo += sp.chunk {
		hi := min(lo+sp.chunk, m)
		recs := make([]sources.Record, hi-lo)
		vals := make([]any, len(recs)*len(names))
		for i := range recs {
			recs[i] = sources.Record{Names: names, Values: vals[i*len(names) : (i+1)*len(names) : (i+1)*len(names)]}
		}
		for j := range r.cols {
			if err := r.fill(recs, j, &r.curs[j], n, sp.keep); err != nil {
				return fmt.Errorf("sources: %s: row group %d, rows from %d: column %q: %w", sp.path, sp.rg, sp.first, r.p.cols.names[j], err)
			}
		}
		for i := range recs {
			for ci, v := range r.p.consts {
				recs[i].Values[r.p.cols.pos[k+ci]] = v
			}
			if r.p.trace {
				row := int64(lo + i)
				if rows != nil {
					row = int64(rows[lo+i])
				}
				t := k + len(r.p.consts)
				recs[i].Values[t], recs[i].Values[t+1], recs[i].Values[t+2] = sp.file, sp.rg, sp.first+row
			}
		}
		ids := flow.OrdinalIDs(sp.id, uint64(sp.first)+uint64(lo), hi-lo)
		if rows != nil {
			ids = keptIDs(sp, rows[lo:hi])
		}
		c := flow.Chunk[sources.Record]{Part: sp.batch, IDs: ids, Values: recs, End: last && hi == m}
		if err := out.Push(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// fillCursor is where the filling of one column of a span's records
// stands: the next span row, and the next value and level entry.
type fillCursor struct {
	i, v int
	as   assembler // columns under repeated fields
}

// cursor returns the cursor of column j at the span's first row.
func (r *recordsReader) cursor(j int) fillCursor {
	c := &r.cols[j]
	leaf := &r.p.cols.info[j]
	cur := fillCursor{}
	if leaf.MaxRepetitionLevel > 0 {
		cur.as = assembler{reps: c.RepLevels, defs: c.DefLevels, repDef: r.p.repDef[j], maxDef: leaf.MaxDefinitionLevel,
			get: valueGetter(c, r.p.str[j], assemble.Unsigned(leaf), &r.mem), n: c.Len(), mem: &r.mem, tmp: &r.tmp}
	}
	return cur
}

// fill sets column j of recs, from the span row where cur stands on, to
// the rows that keep keeps (all if keep is nil) among the n of the span,
// in order, and moves cur past them.
func (r *recordsReader) fill(recs []sources.Record, j int, cur *fillCursor, n int, keep []bool) error {
	c := &r.cols[j]
	leaf := &r.p.cols.info[j]
	maxDef := leaf.MaxDefinitionLevel
	at := r.p.cols.pos[j] // the column's place in the records
	short := func() error { return fmt.Errorf("fewer values or levels than rows") }
	k := 0 // the next record
	switch {
	case leaf.MaxRepetitionLevel > 0:
		as := &cur.as
		reps := as.reps
		if len(reps) != len(as.defs) {
			return short()
		}
		for ; k < len(recs) && cur.i < n; cur.i++ {
			i := cur.i
			if as.l >= len(reps) || reps[as.l] != 0 {
				return fmt.Errorf("row %d does not start at level entry %d", i, as.l)
			}
			as.use = keep == nil || keep[i]
			x, err := as.list(0)
			if err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
			if as.l < len(reps) && reps[as.l] != 0 {
				return fmt.Errorf("row %d: level entry %d has repetition level %d, beyond the column's %d", i, as.l, reps[as.l], len(as.repDef))
			}
			if as.use {
				recs[k].Values[at] = x
				k++
			}
		}
	case maxDef > 0:
		if len(c.DefLevels) < n {
			return short()
		}
		get := valueGetter(c, r.p.str[j], assemble.Unsigned(leaf), &r.mem)
		for ; k < len(recs) && cur.i < n; cur.i++ {
			use := keep == nil || keep[cur.i]
			if int(c.DefLevels[cur.i]) == maxDef {
				if cur.v >= c.Len() {
					return short()
				}
				if use {
					recs[k].Values[at] = get(cur.v)
				}
				cur.v++
			}
			if use {
				k++
			}
		}
	default:
		if c.Len() < n {
			return short()
		}
		get := valueGetter(c, r.p.str[j], assemble.Unsigned(leaf), &r.mem)
		for ; k < len(recs) && cur.i < n; cur.i++ {
			if keep == nil || keep[cur.i] {
				recs[k].Values[at] = get(cur.i)
				k++
			}
		}
	}
	return nil
}

// assembler rebuilds the nested lists of a leaf under repeated fields from
// its levels (Dremel record assembly): an entry with repetition level r
// adds an element to the list at depth r-1 (0 starts a row) and starts new
// lists at every deeper depth; its definition level says how deep these are
// defined.
type assembler struct {
	reps, defs []byte
	repDef     []int // per depth: definition level from which its list has an element
	maxDef     int
	get        func(v int) any
	n          int  // number of values
	l, v       int  // the next level entry and value
	use        bool // build the values (else only walk the levels)
	// The lists are built in *tmp, a buffer per depth that the reader's
	// columns share (they are filled one after another), then copied into
	// mem, which many lists share.
	mem *chunkmem.Memory
	tmp *[][]any
}

// list returns the list at depth j that starts at entry a.l, and moves
// a.l past its entries.
func (a *assembler) list(j int) (any, error) {
	if d := int(a.defs[a.l]); d < a.repDef[j] {
		// The list has no element. Its repeated field's parent, one
		// definition level up, is present when the list is empty and
		// absent (it, or a group above it, null) when the list is null.
		a.l++
		if d == a.repDef[j]-1 && a.use {
			return []any{}, nil
		}
		return nil, nil
	}
	if len(*a.tmp) <= j {
		*a.tmp = append(*a.tmp, make([][]any, j+1-len(*a.tmp))...)
	}
	list := (*a.tmp)[j][:0]
	for {
		var x any
		if j == len(a.repDef)-1 {
			d := int(a.defs[a.l])
			if d > a.maxDef {
				return nil, fmt.Errorf("level entry %d has definition level %d, beyond the column's %d", a.l, d, a.maxDef)
			}
			if d == a.maxDef {
				if a.v >= a.n {
					return nil, fmt.Errorf("fewer values or levels than rows")
				}
				if a.use {
					x = a.get(a.v)
				}
				a.v++
			}
			a.l++
		} else {
			var err error
			if x, err = a.list(j + 1); err != nil {
				return nil, err
			}
		}
		if a.use {
			list = append(list, x)
		}
		if a.l >= len(a.reps) || int(a.reps[a.l]) != j+1 {
			break
		}
	}
	(*a.tmp)[j] = list // a deeper list may have grown *a.tmp: index it again
	if !a.use {
		return nil, nil
	}
	out := a.mem.Values(len(list))
	copy(out, list)
	clear(list) // drop references to the values
	return out, nil
}

// valueGetter returns value v of c as a record value: the natural Go kind
// of the column's type (see internal/parquet/assemble). Strings and the
// values that an any cannot hold in itself are kept in mem.
func valueGetter(c *pqcol.Column, str, unsigned bool, mem *chunkmem.Memory) func(v int) any {
	switch c.Leaf.Kind {
	case pq.Boolean:
		return func(v int) any { return c.Boolean[v] }
	case pq.Int32:
		if unsigned {
			return func(v int) any { return mem.BoxUint32(uint32(c.Int32[v])) }
		}
		return func(v int) any { return mem.BoxInt32(c.Int32[v]) }
	case pq.Int64:
		if unsigned {
			return func(v int) any { return mem.BoxUint64(uint64(c.Int64[v])) }
		}
		return func(v int) any { return mem.BoxInt64(c.Int64[v]) }
	case pq.Float:
		return func(v int) any { return mem.BoxFloat32(c.Float[v]) }
	case pq.Double:
		return func(v int) any { return mem.BoxFloat64(c.Double[v]) }
	case pq.Int96:
		return func(v int) any {
			var b [12]byte
			for k, w := range c.Int96[v] {
				b[4*k], b[4*k+1], b[4*k+2], b[4*k+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
			}
			return b
		}
	case pq.ByteArray:
		if str {
			return func(v int) any {
				b := c.ByteArray(v)
				return mem.BoxString(mem.String(unsafe.String(unsafe.SliceData(b), len(b))))
			}
		}
		return func(v int) any { return append([]byte(nil), c.ByteArray(v)...) }
	case pq.FixedLenByteArray:
		return func(v int) any { return append([]byte(nil), c.FixedLenByteArray(v)...) }
	}
	return func(int) any { return nil }
}
