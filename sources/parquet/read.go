package parquet

import (
	"context"
	"fmt"
	"hash"
	"io"
	"iter"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/datasource"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/parquet/pqfilter"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// Read returns a source of the rows of a Parquet dataset. T is the value
// model, what each item is:
//
//   - a struct type: a row decoded into the fields of T (see "Struct
//     fields" below), the fastest;
//   - [sources.Record]: a row as the names and values of its columns, for
//     ETL that does not know the schema in advance (see "Records");
//   - *[ColumnBatch]: the rows of a fragment as typed column slices, for
//     consumers that work on tables (see "Column batches").
//
// T is matched exactly: a struct type of its own, even one with the
// fields of sources.Record, is read as structs. Any other T fails the run.
//
// The dataset is root: a file, a directory tree (every *.parquet file
// under it, skipping hidden and _-prefixed names), or a glob; or the
// paths given with [sources.Files], under root. Files are taken in the order of
// their paths relative to root. Hive-style key=value directories become
// partition columns (strings), which struct fields of that name (after
// [Rename]) receive, [Columns] selects like file columns, and [sources.Where]
// filters on before any file is opened.
//
// # Partitions and row IDs
//
// Each fragment (a row group, or up to [MaxRows] rows of one, or a whole
// file with [sources.WholeFiles]) is a partition, numbered in plan order. Row i of
// a file gets the ID rowid.Ordinal(i).Combine(rowid.FromString(rel)), rel
// being the file's slash-separated path relative to root: a row has the
// same ID whatever the shuffle, rank or parallelism.
//
// # Filters
//
// [sources.Where] selects files by their Hive partition values before any file
// is opened. [RowFilter] selects rows by the values of file columns: it
// skips the row groups, and the pages where the file has a page index,
// whose statistics show that no row matches, and tests the remaining rows
// one by one.
//
// # Parallel reads
//
// With Parallel(n) the source reads n fragments at once, sharing one open
// file between them; output order is the plan order at every n. Files
// stay open until the run ends.
//
// # Struct fields
//
// A field reads the column named by its parquet tag (or its Go name):
// bool, integers, floats, string and []byte, pointers to these (nil for
// null) and slices of these (for repeated and LIST columns). A field must
// hold every value its column's type can have, by this table (the width
// and signedness of integers come from the column's logical type):
//
//	BOOLEAN                       bool
//	INT32 signed (8, 16, 32 bits) int8…int64, int, from the column's width up
//	INT32 unsigned                uint8…uint64, uint from the width up; wider int
//	INT64 signed                  int64, int
//	INT64 unsigned                uint64, uint
//	FLOAT                         float32, float64
//	DOUBLE                        float64
//	BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY  string, []byte
//	TIMESTAMP, DATE, INT96        time.Time (in UTC)
//	DECIMAL (INT32, INT64, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY)
//	                              decimal.Decimal of github.com/shopspring/decimal,
//	                              exact, at the column's scale
//
// Any other pairing (a uint64 field for a signed INT64 column, an int32
// field for INT64) fails the run when the file is opened, naming the
// column, its type and the field: no value is truncated or reinterpreted.
// A null read into a field that is not a pointer leaves the zero value, as
// parquet-go's GenericReader does; give an optional column a pointer
// field to tell null from zero. Records hold each column as the first Go
// type of its row, and column batches mark unsigned columns.
//
// Only the columns of T's fields are read and decoded; [Columns] narrows
// that further, and a name it gives that no field reads fails when the
// source is built. The reader decodes pages straight into typed buffers
// and fills the structs through field offsets: nothing is reflected per
// row.
//
// # Records
//
// With T [sources.Record], [Columns] selects and orders the columns, file
// columns by their dotted leaf paths and Hive partition columns by their
// names (both after [Rename]), and [Trace] adds the columns __file,
// __row_group and __row_index after them. Without Columns, the file
// columns come in file order, then the Hive partition columns, as
// strings; [RecordSchema] is the Parquet schema of these records.
//
// The records of one file share their Names (callers must not modify
// them). A value is nil for null,
// bool, int32 or int64 (uint32 or uint64 for columns whose logical type is
// unsigned), float32 or float64; a string for BYTE_ARRAY columns
// of the STRING, ENUM or JSON logical types; a []byte for other BYTE_ARRAY
// and FIXED_LEN_BYTE_ARRAY columns; a [12]byte for INT96; and, for a leaf
// under k repeated fields (a repeated column, a LIST, a MAP), k nested
// []any: for k = 2 a []any of []any of such values. A list at any depth is
// nil when it is null and an empty []any when it is empty (the definition
// levels tell them apart; a list that cannot be null, such as a repeated
// column or a required LIST, reads as empty), and an element is nil when
// it, or an optional group between it and its list, is null. Logical types
// other than strings are not applied.
//
// There is one value per leaf column, named by its dotted path: groups are
// not rebuilt. A MAP column m gives two values, m.key_value.key and
// m.key_value.value, each a list, and a list of structs gives one list per
// field of the struct, with matching lengths.
//
// Records cost an allocation per value; structs and column batches are
// much faster.
//
// # Column batches
//
// With T *[ColumnBatch], each item is the rows of one fragment (or, with
// [sources.WholeFiles], of one row group of it) as typed column slices.
// The batch's row ID is the ID of its first row; [ColumnBatch.RowID]
// gives the others.
//
// Every leaf column is read, and every Hive partition column is in the
// batch's Partition, unless [Columns] names some (by their dotted paths
// or Hive names, after [Rename]); the batch's Columns are then in the
// order named. [sources.ChunkSize] does not apply, and [Trace] adds
// nothing (the batch has its file, row group and first row). With
// [RowFilter], batches keep every row and mark the matching ones in
// [ColumnBatch.Keep].
//
// # Bad input
//
// A corrupt, truncated or unsupported file fails the run with an error
// that names the file, row group, column and page where known. A page
// whose decoded size exceeds [MaxPageSize] fails the same way before it is
// decompressed, and so does a fragment's column whose values would take
// more than [MaxReadSize]. A footer whose row counts its column chunks
// cannot hold fails before anything is planned from it. With [sources.SkipBad], a fragment that fails to read is
// skipped instead, and reported.
//
// Options: [sources.Files], [sources.WholeFiles], [MaxRows], [Columns],
// [Rename], [sources.ShuffleWindow], [sources.Where], [RowFilter],
// [Trace], [MaxPageSize], [MaxReadSize], [sources.SkipBad],
// [sources.ChunkSize], [sources.Named].
func Read[T any](root string, opts ...Option) flow.Source[T] {
	switch any(*new(T)).(type) {
	case sources.Record:
		return any(newParquet[sources.Record](root, recordsFormat{}, opts)).(flow.Source[T])
	case *ColumnBatch:
		return any(newParquet[*ColumnBatch](root, columnsFormat{}, opts)).(flow.Source[T])
	}
	return newParquet[T](root, structFormat[T]{}, opts)
}

func newParquet[T any](root string, f format[T], opts []Option) flow.Source[T] {
	// The name leaves out root, so that the pipeline's fingerprint, and
	// so the files a sink writes, do not depend on where the dataset is.
	// Errors name the files themselves.
	c, err := buildParquet(opts)
	if err == nil {
		err = f.check(&c)
	}
	return &parquetSource[T]{root: root, cfg: c, err: err, format: f}
}

// format is how a Parquet source turns decoded columns into values of T:
// structs, column batches or records.
type format[T any] interface {
	// check checks the options against T when the source is built.
	check(cfg *parquetConfig) error
	// plan prepares the reading of one file.
	plan(file dataset.File, r *pqcol.Reader, cfg *parquetConfig) (filePlan[T], error)
}

// filePlan is a format's plan for one file.
type filePlan[T any] interface {
	// leaves returns the leaf columns to read.
	leaves() []int
	// newReader returns the state for reading fragments, one at a time.
	newReader() fragmentReader[T]
}

// fragmentReader turns the columns of one span of rows into chunks.
type fragmentReader[T any] interface {
	// emit pushes the span's rows, whose columns (the plan's leaves, in
	// order) have just been read into cols.set; last says whether the span
	// ends the fragment. It reports whether it handed cols on with its
	// values, so that the caller must not reuse them.
	emit(ctx context.Context, sp span, cols *columnSet, last bool, out flow.Emitter[T]) (taken bool, err error)
}

// span is rows [from, to) of one row group of a file, and where they go.
type span struct {
	batch    int64
	path     string   // the file's path, for errors
	file     string   // relative path
	id       rowid.ID // the file's ID
	rg       int
	from, to int64
	first    int64  // file ordinal of row from
	chunk    int    // rows per chunk
	keep     []bool // per row: whether the RowFilter keeps it; nil if it keeps all
	// recycle takes back column buffers a format handed on.
	recycle func(*columnSet)
}

type parquetSource[T any] struct {
	root   string
	cfg    parquetConfig
	err    error
	format format[T]
}

func (s *parquetSource[T]) Info() flow.Info {
	c := &s.cfg
	filter := ""
	if c.rowFilter != nil {
		filter = c.rowFilter.String()
	}
	// Without Columns the text is the one a nil set of names printed
	// before Columns kept their order, so that the fingerprints of
	// pipelines without it, and their checkpoints and caches, stay valid.
	columns := "map[]"
	if c.columns != nil {
		columns = fmt.Sprint(c.columns)
	}
	own := fmt.Sprintf("format=%T columns=%s rename=%v filter=%q skip=%t", s.format, columns, c.rename, filter, c.Skip != nil)
	return flow.Info{Name: c.Name, Settings: c.Describe(s.root, own), Ranked: true}
}

// Err reports a bad option.
func (s *parquetSource[T]) Err() error { return s.err }

func (s *parquetSource[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		run, plan, err := s.start(ctx, env)
		if err != nil {
			yield(flow.Partition[T]{}, err)
			return
		}
		datasource.FragmentPartitions(ctx, plan, env.Epoch, run.read)(yield)
	}
}

// start discovers the dataset and plans the run.
func (s *parquetSource[T]) start(ctx context.Context, env flow.Env) (*parquetRun[T], *dataset.Plan, error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	run, err := s.newRun()
	if err != nil {
		return nil, nil, err
	}
	// Objects in a bucket are read with the run's context and bound on
	// requests in flight.
	run.ctx, run.limit = ctx, objstore.NewLimit(objstore.DefaultRequests)
	if s.cfg.Skip != nil && !flow.AtEnd(ctx, func() { run.skips.write(s.cfg.Skip.(*sources.SkipReport)) }) {
		return nil, nil, fmt.Errorf("sources: %s: Partitions called outside a run", s.cfg.Name)
	}
	if !flow.AtEnd(ctx, run.close) {
		return nil, nil, fmt.Errorf("sources: %s: Partitions called outside a run", s.cfg.Name)
	}
	plan, err := run.plan(env)
	if err != nil {
		return nil, nil, err
	}
	return run, plan, nil
}

// newRun discovers the dataset for a run.
func (s *parquetSource[T]) newRun() (*parquetRun[T], error) {
	// In a bucket, the Hive directories that Where rules out are not
	// listed; the plan, which keeps only the files Where is true for, is
	// the same.
	ds, err := s.cfg.DiscoverWhere(s.root, dataset.Parquet, listingWhere(s.cfg.Plan.Where, s.cfg.rename))
	if err != nil {
		return nil, err
	}
	return &parquetRun[T]{src: s, ds: ds, files: map[int]*openFile[T]{}}, nil
}

// plan plans the run over its dataset.
func (run *parquetRun[T]) plan(env flow.Env) (*dataset.Plan, error) {
	// Where names Hive columns as Rename names them; the paths have the
	// raw names.
	dc := run.src.cfg.Settings
	where, err := rawWhere(dc.Plan.Where, run.src.cfg.rename, run.ds.Columns())
	if err != nil {
		return nil, err
	}
	dc.Plan.Where = where
	return dc.NewPlan(run.ds, env, dataset.MetadataFunc(run.rowGroups))
}

// LocateRow tells which file and row of it the row id of partition part
// is, planning the run again (flow.RowLocator): "b.parquet, row 12", the
// row counted from 0 in the file.
func (s *parquetSource[T]) LocateRow(ctx context.Context, env flow.Env, part int64, id rowid.ID) (string, bool) {
	if s.err != nil {
		return "", false
	}
	run, err := s.newRun()
	if err != nil {
		return "", false
	}
	defer run.close()
	plan, err := run.plan(env)
	if err != nil {
		return "", false
	}
	return datasource.LocateIn(ctx, plan, part, id, nil, nil)
}

// parquetRun is one run's state: the files opened so far.
type parquetRun[T any] struct {
	ctx   context.Context // the run's, for reading objects; nil: each read's
	limit *objstore.Limit
	src   *parquetSource[T]
	ds    *dataset.Dataset
	mu    sync.Mutex
	files map[int]*openFile[T]
	open_ int    // files open now
	clock uint64 // counts uses, for closing the least recently used file
	skips skipLog
	// stamps holds each file's stamp (by path) from the first time the
	// run opened it: a file closed to bound the open files and opened
	// again must be the one the run planned.
	stamps map[string]fileStamp
	// cols recycles column buffers across the run's files: their size
	// depends on the rows read, not on the file.
	cols sync.Pool // *columnSet
}

// maxOpenFiles bounds the files a run keeps open; the least recently used
// file that no read is using is closed past it, and opened again if a
// later fragment needs it.
const maxOpenFiles = 64

// columnSet is the column buffers of one read.
type columnSet struct {
	set []pqcol.Column
}

func (run *parquetRun[T]) columns(n int) *columnSet {
	cs, _ := run.cols.Get().(*columnSet)
	if cs == nil {
		cs = &columnSet{}
	}
	for len(cs.set) < n {
		cs.set = append(cs.set, pqcol.Column{})
	}
	cs.set = cs.set[:n]
	return cs
}

// openFile is a file open for the run: one pqcol.Reader shared by every
// fragment of the file, the format's plan for its schema, and fragment
// readers to reuse.
type openFile[T any] struct {
	once    sync.Once
	err     error
	refs    int    // reads using the file; guarded by the run's mu
	used    uint64 // the run's clock at the last use; guarded by mu
	f       objstore.Object
	r       *pqcol.Reader
	plan    filePlan[T]
	filter  *pqfilter.Predicate // the RowFilter compiled for the file, or nil
	id      rowid.ID
	path    string
	rel     string
	starts  []int64   // first file row of each row group
	readers sync.Pool // *readerState[T]
	stamp   fileStamp // the file when it was opened (see checkUnchanged)
}

// readerState is what one fragment read uses: the format's reader and the
// row filter's buffers.
type readerState[T any] struct {
	rd     fragmentReader[T]
	filter *pqfilter.State
}

// open returns file i, opening it if needed; the caller must release it.
func (run *parquetRun[T]) open(ctx context.Context, i int) (*openFile[T], error) {
	run.mu.Lock()
	of, ok := run.files[i]
	if !ok {
		of = &openFile[T]{}
		run.files[i] = of
		run.open_++
	}
	of.refs++
	run.clock++
	of.used = run.clock
	if !ok {
		run.evict() // after refs++: the file just opened is in use
	}
	run.mu.Unlock()
	of.once.Do(func() { of.err = run.load(ctx, of, run.ds.Files()[i]) })
	return of, of.err
}

// release ends a use of of.
func (run *parquetRun[T]) release(of *openFile[T]) {
	run.mu.Lock()
	of.refs--
	run.mu.Unlock()
}

// evict closes the least recently used idle file while too many are
// open. Called with mu held.
func (run *parquetRun[T]) evict() {
	for run.open_ > maxOpenFiles {
		victim := -1
		for i, of := range run.files {
			if of.refs == 0 && (victim < 0 || of.used < run.files[victim].used) {
				victim = i
			}
		}
		if victim < 0 {
			return // every open file is in use
		}
		run.files[victim].close()
		delete(run.files, victim)
		run.open_--
	}
}

func (run *parquetRun[T]) load(ctx context.Context, of *openFile[T], file dataset.File) error {
	cfg := &run.src.cfg
	if run.ctx != nil {
		ctx = run.ctx // the file serves the run's later fragments too
	}
	f, err := objstore.Open(ctx, file.Path, objstore.Options{Tail: objstore.FooterTail, Limit: run.limit})
	if err != nil {
		return err
	}
	of.f = f

	var popts []pqcol.Option
	if cfg.maxPage > 0 {
		popts = append(popts, pqcol.MaxPageSize(cfg.maxPage))
	}
	if cfg.maxRead > 0 {
		popts = append(popts, pqcol.MaxReadSize(cfg.maxRead))
	}
	of.r, err = pqcol.Open(file.Path, f, f.Size(), popts...)
	if err != nil {
		return err
	}
	if of.stamp, err = stampFile(f, true); err != nil {
		return fmt.Errorf("%s: %w", file.Path, err)
	}
	if err := run.sameAsFirst(file.Path, of.stamp); err != nil {
		return err
	}
	of.path, of.rel, of.id = file.Path, file.RelPath, rowid.FromString(file.RelPath)
	// A partition value too long for its directory name is read whole
	// from the file, where rowflow's sink stores it.
	file.Partition = file.Partition.Resolve(of.r.File().Lookup)
	of.plan, err = run.src.format.plan(file, of.r, cfg)
	if err != nil {
		return err
	}
	if cfg.rowFilter != nil {
		pf := pqfilter.File{Path: file.Path, Rename: cfg.rename}
		for _, f := range hiveColumns(file.Partition, cfg.rename) {
			pf.Hive = append(pf.Hive, f.Name)
		}
		if of.filter, err = pqfilter.Compile(cfg.rowFilter, pf, of.r, of.plan.leaves()); err != nil {
			return err
		}
	}
	start := int64(0)
	for rg := range of.r.NumRowGroups() {
		of.starts = append(of.starts, start)
		start += of.r.NumRows(rg)
	}
	return nil
}

// rowGroups is the plan's metadata: the row-group sizes of a file, from
// the run's open file.
func (run *parquetRun[T]) rowGroups(ctx context.Context, f dataset.File) ([]int64, error) {
	i, ok := slices.BinarySearchFunc(run.ds.Files(), f.RelPath, func(a dataset.File, rel string) int {
		return strings.Compare(a.RelPath, rel)
	})
	if !ok {
		return nil, fmt.Errorf("sources: %s is not in the dataset", f.Path)
	}
	of, err := run.open(ctx, i)
	defer run.release(of)
	if err != nil {
		if run.src.cfg.Skip != nil && ctx.Err() == nil {
			run.skips.addFile(sources.Skipped{Path: f.RelPath, Part: -1, RowGroup: -1, Err: err.Error()})
			return nil, nil
		}
		return nil, err
	}
	rows := make([]int64, of.r.NumRowGroups())
	for rg := range rows {
		rows[rg] = of.r.NumRows(rg)
	}
	return rows, nil
}

func (run *parquetRun[T]) close() {
	run.mu.Lock()
	defer run.mu.Unlock()
	for _, of := range run.files {
		of.close()
	}
	run.files, run.open_ = nil, 0
}

// close closes the file and lets go of what its Reader holds.
func (of *openFile[T]) close() {
	if of.r != nil {
		of.r.Close()
	}
	if of.f != nil {
		of.f.Close()
	}
}

// read pushes the rows of one fragment.
func (run *parquetRun[T]) read(ctx context.Context, fr dataset.Fragment, out flow.Emitter[T]) error {
	if run.src.cfg.Skip != nil {
		return run.readSkipping(ctx, fr, out)
	}
	return run.readStrict(ctx, fr, out)
}

// readStrict pushes the rows of one fragment, or fails. Its errors are
// passed on as they are: each names the file (and the row group, column
// and row where known) where it starts, and the run names the partition.
func (run *parquetRun[T]) readStrict(ctx context.Context, fr dataset.Fragment, out flow.Emitter[T]) error {
	of, err := run.open(ctx, fr.File)
	defer run.release(of)
	if err != nil {
		return err
	}
	// The file may have changed since the run opened it, and may change
	// while the fragment is read: checked at both ends.
	if err := of.checkUnchanged(false); err != nil {
		return err
	}
	if err := run.readFile(ctx, of, fr, out); err != nil {
		if cerr := of.checkUnchanged(true); cerr != nil {
			return cerr // what the read failed on is the change
		}
		return err
	}
	return of.checkUnchanged(true)
}

func (run *parquetRun[T]) readFile(ctx context.Context, of *openFile[T], fr dataset.Fragment, out flow.Emitter[T]) error {
	st, _ := of.readers.Get().(*readerState[T])
	if st == nil {
		st = &readerState[T]{rd: of.plan.newReader(), filter: of.filter.NewState()}
	}
	defer of.readers.Put(st)
	rd := st.rd
	// A whole-file fragment spans row groups; a row-group fragment is one.
	base := span{batch: fr.Part, path: of.path, file: of.rel, id: of.id, chunk: run.src.cfg.ChunkSize,
		recycle: func(cs *columnSet) { run.cols.Put(cs) }}
	var spans []span
	if fr.RowGroup >= 0 {
		sp := base
		sp.rg, sp.from, sp.to = fr.RowGroup, fr.From, fr.To
		spans = append(spans, sp)
	} else {
		for rg, start := range of.starts {
			lo, hi := max(fr.From, start), min(fr.To, start+of.r.NumRows(rg))
			if lo < hi {
				sp := base
				sp.rg, sp.from, sp.to = rg, lo-start, hi-start
				spans = append(spans, sp)
			}
		}
	}
	if of.filter != nil {
		// Only the rows whose row group and pages may match are read.
		var err error
		if spans, err = narrow(ctx, of.filter, of.r, spans); err != nil {
			return err
		}
	}
	if len(spans) == 0 {
		return out.Push(ctx, flow.Chunk[T]{Part: fr.Part, End: true})
	}
	cols := run.columns(len(of.plan.leaves()))
	defer func() {
		if cols != nil {
			run.cols.Put(cols)
		}
	}()
	ahead, _ := of.f.(objstore.Prefetcher)
	for si, sp := range spans {
		if cols == nil {
			cols = run.columns(len(of.plan.leaves()))
		}

		sp.first = of.starts[sp.rg] + sp.from
		last := si == len(spans)-1
		if of.filter != nil {
			keep, some, err := of.filter.FilterRows(ctx, of.r, st.filter, sp.rg, sp.from, sp.to, cols.set)
			if err != nil {
				return err
			}
			if !some {
				if err := pushEnd(ctx, sp, last, out); err != nil {
					return err
				}
				continue
			}
			sp.keep = keep
		}
		// MaxReadSize bounds the span's columns together: each read is
		// charged what the columns read before it hold.
		var held int64
		leaves := of.plan.leaves()
		first, step := columnOrder(sp, len(leaves))
		for k := range leaves {
			i := (first + step*k + len(leaves)) % len(leaves)
			leaf := leaves[i]
			if ahead != nil && of.filter == nil {
				// While this column chunk is decoded, the next one (of
				// this span, or the first of the next) is read.
				ahead.Prefetch(of.chunkRanges(spans[si:], i, 2))
			}
			if !of.filter.Filled(i) {
				cols.set[i].Charged = held
				if err := of.r.ReadColumnRange(ctx, sp.rg, leaf, sp.from, sp.to, &cols.set[i]); err != nil {
					return err
				}
			}
			held += cols.set[i].Size()
		}
		taken, err := rd.emit(ctx, sp, cols, last, out)
		if taken {
			cols = nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// columnOrder returns the column of its n that a read of span sp reads
// first and the step to the next (1 or -1), round to the one before. The
// j-th range of a row group (counted from 0, by the span's rows) is one
// of the pair 2m, 2m+1, which two workers read at the same time. Range
// 2m starts at the column at fraction f of the columns, where f is 2m's
// bits reversed after the binary point (0, 1/4, 1/8, 3/8, ...), and goes
// forward; range 2m+1 starts at the column before that one and goes
// backward. The two sweep the columns from opposite ends and meet once:
// a page that holds rows of both (DuckDB writes one page per chunk) is
// decompressed once for them (pqcol shares it), each doing half of that
// work, and one that starts later waits for the other at most once. (Two
// reads going the same way half the columns apart waited on each other
// at every page where the later one caught up.) Pairs start a quarter,
// an eighth, ... of the columns apart. The order is a function of the
// span, so every run reads, charges MaxReadSize and fails in the same
// order.
func columnOrder(sp span, n int) (first, step int) {
	size := sp.to - sp.from
	if sp.from <= 0 || size <= 0 || n == 0 {
		return 0, 1
	}
	j := uint64(sp.from/size + (sp.from%size)*2/size) // the range's place, rounded
	f := float64(bits.Reverse64(j&^1)) / (1 << 64)
	first = min(int(f*float64(n)), n-1)
	if j&1 == 1 {
		return (first + n - 1) % n, -1
	}
	return first, 1
}

// chunkRanges returns the byte ranges of n column chunks that the reads
// of the spans will read whole, from the chunk of leaf i (by its index in
// the plan's leaves) of spans[0] on, in the order they are read. A chunk
// of a span that covers part of its row group is skipped: its read starts
// at a page that the offset index tells. So is a chunk whose bounds are
// outside the file, left to the read, which reports it.
func (of *openFile[T]) chunkRanges(spans []span, i, n int) []objstore.Range {
	var out []objstore.Range
	groups := of.r.File().Metadata().RowGroups
	size := of.f.Size()
	leaves := of.plan.leaves()
	for _, sp := range spans {
		for ; i < len(leaves) && n > 0; i++ {
			n--
			if sp.from != 0 || sp.rg >= len(groups) || sp.to != of.r.NumRows(sp.rg) || leaves[i] >= len(groups[sp.rg].Columns) {
				continue
			}
			cm := &groups[sp.rg].Columns[leaves[i]].MetaData
			start := cm.DataPageOffset
			if cm.DictionaryPageOffset > 0 && cm.DictionaryPageOffset < start {
				start = cm.DictionaryPageOffset
			}
			if k := cm.TotalCompressedSize; start >= 0 && k > 0 && k <= size-start {
				out = append(out, objstore.Range{Off: start, Len: k})
			}
		}
		if n == 0 {
			break
		}
		i = 0
	}
	return out
}

// narrow returns the parts of spans where the row filter may be true, in
// order (see [pqfilter.Predicate.Narrow]); the parts keep their spans'
// fields but from and to.
func narrow(ctx context.Context, p *pqfilter.Predicate, r *pqcol.Reader, spans []span) ([]span, error) {
	var out []span
	for _, sp := range spans {
		ranges, err := p.Narrow(ctx, r, sp.rg, sp.from, sp.to)
		if err != nil {
			return nil, err
		}
		for _, rr := range ranges {
			part := sp
			part.from, part.to = rr[0], rr[1]
			out = append(out, part)
		}
	}
	return out, nil
}

var _ flow.RowCounter = (*parquetSource[int])(nil)

// RowCounts returns the rows of each fragment of the plan, from the files'
// footers; it reads no pages. With a RowFilter the counts are not known
// before the rows are read, and it says so.
func (s *parquetSource[T]) RowCounts(ctx context.Context, env flow.Env) ([]int64, error) {
	if s.err == nil && s.cfg.rowFilter != nil {
		return nil, fmt.Errorf("sources: %s has a RowFilter: its row counts are known only after reading the rows", s.cfg.Name)
	}
	_, plan, err := s.start(ctx, env)
	if err != nil {
		return nil, err
	}
	var counts []int64
	for fr, err := range plan.Epoch(ctx, env.Epoch) {
		if err != nil {
			return nil, err
		}
		counts = append(counts, fr.To-fr.From)
	}
	return counts, nil
}

// DataFingerprint fingerprints the files of the dataset
// (flow.DataFingerprinter): each file's path, size and modification time,
// and the CRC-32C of its footer.
func (s *parquetSource[T]) DataFingerprint(ctx context.Context, env flow.Env) (string, error) {
	if s.err != nil {
		return "", s.err
	}
	ds, err := s.cfg.Discover(s.root, dataset.Parquet)
	if err != nil {
		return "", err
	}
	return datasource.FilesFingerprint(ctx, ds, func(h hash.Hash, f io.ReaderAt, size int64) error {
		sum, err := footerSum(f, size)
		if err != nil {
			// A run fails on the file, or skips it; the fingerprint
			// says only that its footer could not be read.
			fmt.Fprintf(h, "no footer: %v\n", err)
			return nil
		}
		fmt.Fprintf(h, "footer %08x\n", sum)
		return nil
	})
}
