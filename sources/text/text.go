package text

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/chunkmem"
	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/datasource"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// textFormat is what a line-based source knows of its format: which files
// it reads, how records end, and how a range of bytes becomes values.
type textFormat[T any] interface {
	// files is the format's name and file names.
	files() dataset.Format
	// quoted reports whether a newline may lie inside a quoted field.
	quoted() bool
	// read decodes the records of part into out.
	read(ctx context.Context, part *textPart, out *rowBuffer[T]) error
}

// modelSource returns the source of the records (T [sources.Record]) or
// column batches (T *[parquet.ColumnBatch]) of root, read with the
// format of that model, and false for any other T, which reads structs.
func modelSource[T any](root string, c textConfig, err error,
	records textFormat[sources.Record], columns textFormat[*parquet.ColumnBatch]) (flow.Source[T], bool) {
	switch any(*new(T)).(type) {
	case sources.Record:
		return any(&textSource[sources.Record]{root: root, cfg: c, err: err, format: records}).(flow.Source[T]), true
	case *parquet.ColumnBatch:
		return any(&textSource[*parquet.ColumnBatch]{root: root, cfg: c, err: err, format: columns}).(flow.Source[T]), true
	}
	return nil, false
}

type textSource[T any] struct {
	root   string
	cfg    textConfig
	err    error
	format textFormat[T]
}

func (s *textSource[T]) Info() flow.Info {
	c := &s.cfg
	codec := "by extension"
	if c.codec != nil {
		codec = c.codec.String()
	}
	own := fmt.Sprintf("format=%T codec=%s split=%d skip=%t comma=%q header=%q missing=%t", s.format, codec, c.splitBytes, c.Skip != nil, c.comma, c.header, c.allowMissing)
	return flow.Info{Name: c.Name, Settings: c.Describe(s.root, own), Ranked: true}
}

// Err reports a bad option.
func (s *textSource[T]) Err() error { return s.err }

func (s *textSource[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		run, plan, err := s.start(ctx, env)
		if err != nil {
			yield(flow.Partition[T]{}, err)
			return
		}
		datasource.FragmentPartitions(ctx, plan, env.Epoch, run.read)(yield)
	}
}

// textRun is one run's state.
type textRun[T any] struct {
	src   *textSource[T]
	ds    *dataset.Dataset
	skips badLines
	mu    sync.Mutex
	state map[int]*fileState // per file, what its parts share
	// planned holds each file's size and modification time when its
	// byte ranges were planned: a part refuses a file that has changed
	// since, whose ranges would no longer start at records.
	planned map[string]stamp
	split   int64 // the size of byte ranges: see rankSplitBytes
	limit   *objstore.Limit
	world   int // the run's world
}

// stamp is what tells a file's contents changed: its size and
// modification time.
type stamp struct {
	size    int64
	modTime time.Time
	etag    string // of an object in a bucket
}

func stampOf(st objstore.Stamp) stamp { return stamp{st.Size, st.ModTime, st.ETag} }

// checkStamp fails if the file open as fh has changed since its ranges
// were planned. A part checks when it opens the file and when it has read
// its range, before it ends its partition.
func (run *textRun[T]) checkStamp(file dataset.File, fh objstore.Object) error {
	run.mu.Lock()
	was, ok := run.planned[file.Path]
	run.mu.Unlock()
	if !ok {
		return nil
	}
	st, err := fh.Stamp()
	if err != nil {
		return err
	}
	if now := stampOf(st); now != was {
		etags := ""
		if now.etag != was.etag {
			etags = fmt.Sprintf(" (ETag %s then, %s now)", was.etag, now.etag)
		}
		return fmt.Errorf("%s changed during the run: %d bytes modified at %s when its partitions were planned, %d bytes modified at %s now%s",
			file.RelPath, was.size, was.modTime.Format(time.RFC3339Nano), now.size, now.modTime.Format(time.RFC3339Nano), etags)
	}
	return nil
}

// fileState is what the parts of one file share, such as a CSV header,
// made once by the first part that needs it.
type fileState struct {
	once sync.Once
	v    any
	err  error
}

func (s *textSource[T]) start(ctx context.Context, env flow.Env) (*textRun[T], *dataset.Plan, error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	run, plan, err := s.plan(env)
	if err != nil {
		return nil, nil, err
	}
	if s.cfg.Skip != nil && !flow.AtEnd(ctx, func() { run.skips.write(s.cfg.Skip.(*sources.SkipReport)) }) {
		return nil, nil, fmt.Errorf("sources: %s: Partitions called outside a run", s.cfg.Name)
	}
	return run, plan, nil
}

// plan discovers the dataset and plans a run over it.
func (s *textSource[T]) plan(env flow.Env) (*textRun[T], *dataset.Plan, error) {
	// In a bucket, the Hive directories that Where rules out are not
	// listed, where the plan does not depend on the files it leaves out:
	// unless ranks divide byte ranges sized by the whole dataset.
	var where *filter.Expr
	if env.World <= 1 || s.cfg.Plan.WholeFiles {
		where = s.cfg.Plan.Where
	}
	ds, err := s.cfg.DiscoverWhere(s.root, s.format.files(), where)
	if err != nil {
		return nil, nil, err
	}
	run := &textRun[T]{src: s, ds: ds, state: map[int]*fileState{}, planned: map[string]stamp{},
		limit: objstore.NewLimit(objstore.DefaultRequests)}
	run.split, run.world = s.cfg.rankSplitBytes(ds, env.World), env.World
	plan, err := s.cfg.NewPlan(ds, env, dataset.MetadataFunc(run.ranges))
	if err != nil {
		return nil, nil, err
	}
	return run, plan, nil
}

// LocateRow tells which file and byte of it the row id of partition part
// starts at, planning the run again (flow.RowLocator): "a.csv, byte 812".
// In a compressed file, a fragment of its own, the row is looked for in
// the first maxLocateBytes bytes of the decompressed stream.
func (s *textSource[T]) LocateRow(ctx context.Context, env flow.Env, part int64, id rowid.ID) (string, bool) {
	if s.err != nil {
		return "", false
	}
	run, plan, err := s.plan(env)
	if err != nil {
		return "", false
	}
	span := func(fr dataset.Fragment) (int64, int64) {
		if s.cfg.codecOf(run.ds.Files()[fr.File]) != codec.None {
			return 0, maxLocateBytes
		}
		// A record's ordinal lies between the start of its block and its
		// byte offset.
		return blockStart(fr.FirstRow), fr.FirstRow + fr.Rows()
	}
	where := func(fr dataset.Fragment, o int64) (string, bool) {
		return s.cfg.locateByte(ctx, run.ds.Files()[fr.File], uint64(o), s.format.quoted())
	}
	return datasource.LocateIn(ctx, plan, part, id, span, where)
}

// maxLocateBytes bounds the search of LocateRow in a compressed file.
const maxLocateBytes = 64 << 20

// codecOf returns the compression of file f.
func (c *textConfig) codecOf(f dataset.File) codec.Codec {
	if c.codec != nil {
		return *c.codec
	}
	return codec.ForPath(f.Path)
}

// ranges is the plan's metadata: the sizes of the byte ranges a file is
// split into, which the plan treats as row groups of that many "rows". A
// compressed file is one range.
func (run *textRun[T]) ranges(ctx context.Context, f dataset.File) ([]int64, error) {
	cfg := &run.src.cfg
	fh, err := objstore.Open(ctx, f.Path, objstore.Options{Limit: run.limit})
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stamp()
	if err != nil {
		return nil, err
	}
	size := st.Size
	run.mu.Lock()
	run.planned[f.Path] = stampOf(st)
	run.mu.Unlock()
	switch {
	case cfg.codecOf(f) != codec.None && run.world > 1:
		return []int64{decompressedSize(fh, size, cfg.codecOf(f))}, nil
	case cfg.codecOf(f) != codec.None || cfg.Plan.WholeFiles:
		return []int64{size}, nil
	case size == 0:
		return nil, nil
	}
	comma := rune(0)
	if run.src.format.quoted() {
		comma = cfg.comma
	}
	sizes, err := splitRecords(ctx, fh, size, run.split, comma)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.RelPath, err)
	}
	return sizes, nil
}

// shared returns what the parts of file i share, made by mk on first use.
func (run *textRun[T]) shared(i int, mk func() (any, error)) (any, error) {
	run.mu.Lock()
	st, ok := run.state[i]
	if !ok {
		st = &fileState{}
		run.state[i] = st
	}
	run.mu.Unlock()
	st.once.Do(func() { st.v, st.err = mk() })
	return st.v, st.err
}

// read pushes the records of one fragment: a byte range of a file.
func (run *textRun[T]) read(ctx context.Context, fr dataset.Fragment, out flow.Emitter[T]) error {
	file := run.ds.Files()[fr.File]
	fh, err := objstore.Open(ctx, file.Path, objstore.Options{Limit: run.limit})
	if errors.Is(err, objstore.ErrNoObject) {
		// An object overwritten is missing for a moment on some servers.
		return fmt.Errorf("%s changed during the run: %w", file.RelPath, err)
	}
	if err != nil {
		return err
	}
	defer fh.Close()
	if err := run.checkStamp(file, fh); err != nil {
		return err
	}
	part := &textPart{file: file, f: fh, from: fr.FirstRow, to: fr.FirstRow + fr.Rows(),
		codec: run.src.cfg.codecOf(file), cfg: &run.src.cfg, skips: &run.skips,
		shared: func(mk func() (any, error)) (any, error) { return run.shared(fr.File, mk) }}
	// The part reads from the start of the block it starts in, to count
	// the newlines its first records' ordinals need.
	pre := blockStart(part.from)
	var r io.Reader = io.NewSectionReader(fh, pre, part.to-pre)
	readSize := 64 << 10
	if objstore.IsURL(file.Path) {
		readSize = objectReadSize // fewer, larger ranged reads
		r = bufio.NewReaderSize(r, readSize)
	}
	if part.codec != codec.None {
		part.from, pre = 0, 0
		d, err := part.codec.NewReader(bufio.NewReaderSize(io.NewSectionReader(fh, 0, fh.Size()), readSize))
		if err != nil {
			return fmt.Errorf("%s: %v stream: %w", file.RelPath, part.codec, err)
		}
		defer d.Close()
		r = d
	}
	part.lines = newLineCounter(r, pre)
	part.lines.reading = func() int64 { return part.from + part.mark }
	if err := part.lines.skip(part.from - pre); err != nil {
		return fmt.Errorf("%s: %w", file.RelPath, err)
	}
	part.limit = &recordLimit{r: part.lines, part: part}
	part.r = bufio.NewReaderSize(part.limit, 64<<10)
	buf := &rowBuffer[T]{out: out, batch: fr.Part, comb: rowid.NewCombiner(rowid.FromString(file.RelPath)), size: run.src.cfg.ChunkSize}
	err = run.src.format.read(ctx, part, buf)
	if err == nil {
		// A file truncated or rewritten while the part read it ends the
		// part early, or mixes versions, without a read error.
		err = run.checkStamp(file, fh)
	}
	if err != nil {
		buf.release()
		return err
	}
	return buf.flush(ctx, true)
}

// objectReadSize is the size of the ranged reads of a part of an object
// in a bucket, read in order.
const objectReadSize = 1 << 20

// textPart is one byte range of a file being read.
type textPart struct {
	// shared returns what the parts of the file share, made by mk on
	// first use.
	shared   func(mk func() (any, error)) (any, error)
	cfg      *textConfig
	file     dataset.File
	f        objstore.Object
	from, to int64 // the range; the whole stream of a compressed file
	codec    codec.Codec
	r        *bufio.Reader // the range's bytes, decompressed
	limit    *recordLimit  // what r reads from
	lines    *lineCounter  // what limit reads from
	mark     int64         // the offset in the part of the record being read
	base     int64         // lines before from, once known
	counted  bool
	skips    *badLines
}

// ordinal returns the ordinal of the record at offset off of the part,
// which starts on line line of the part (from 1).
func (p *textPart) ordinal(off, line int64) uint64 {
	return p.lines.ordinal(p.from+off, line-1)
}

// line returns the line number in the file of line k of the part (both
// counted from 1): it counts the newlines before the part the first time
// it is asked, which only errors do.
func (p *textPart) line(k int64) int64 {
	if !p.counted && p.from > 0 {
		p.counted = true
		buf := make([]byte, 256<<10)
		for off := int64(0); off < p.from; {
			n, err := p.f.ReadAt(buf[:min(int64(len(buf)), p.from-off)], off)
			p.base += int64(bytes.Count(buf[:n], []byte{'\n'}))
			off += int64(n)
			if err != nil {
				break
			}
		}
	}
	return p.base + k
}

// bad reports a record that cannot be decoded: it returns the error to
// fail with, or nil if the record is to be skipped and was logged.
func (p *textPart) bad(line, off int64, err error) error {
	e := &LineError{Path: p.file.RelPath, Line: p.line(line), Offset: p.from + off, Err: err}
	if p.cfg.Skip == nil {
		return e
	}
	p.skips.add(sources.Skipped{Path: e.Path, Line: e.Line, Offset: e.Offset, Err: err.Error()})
	return nil
}

// broken returns the error of a stream that cannot be read on, at line
// (of the part) and byte off: it is never skipped.
func (p *textPart) broken(line, off int64, err error) error {
	return &LineError{Path: p.file.RelPath, Line: p.line(line), Offset: p.from + off, Err: err}
}

// LineError is the error of a record of a CSV or JSON Lines file that
// cannot be read: its file, the line it starts on and its byte offset.
type LineError struct {
	Path   string // relative to the dataset root
	Line   int64  // from 1
	Offset int64  // in the decompressed file
	Err    error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s:%d (byte %d): %v", e.Path, e.Line, e.Offset, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// rowBuffer gathers decoded values into chunks of one partition.
type rowBuffer[T any] struct {
	out   flow.Emitter[T]
	batch int64
	comb  rowid.Combiner
	size  int
	vals  []T
	ids   []rowid.ID
	mem   chunkmem.Memory // what the values keep
}

// next returns a slot for the value of the record with ordinal ord,
// holding a copy of init; drop takes it back.
func (b *rowBuffer[T]) next(init *T, ord uint64) *T {
	if b.vals == nil {
		b.vals, b.ids = slicepool.Alloc[T](b.size), slicepool.Alloc[rowid.ID](b.size)
	}
	b.vals = append(b.vals, *init)
	b.ids = append(b.ids, b.comb.Combine(rowid.Ordinal(ord)))
	return &b.vals[len(b.vals)-1]
}

// drop takes back the last slot.
func (b *rowBuffer[T]) drop() {
	var zero T
	b.vals[len(b.vals)-1] = zero
	b.vals, b.ids = b.vals[:len(b.vals)-1], b.ids[:len(b.ids)-1]
}

// full reports whether a chunk is ready to go.
func (b *rowBuffer[T]) full() bool { return len(b.vals) >= b.size }

// flush pushes what was gathered as a chunk; end closes the partition.
func (b *rowBuffer[T]) flush(ctx context.Context, end bool) error {
	if len(b.vals) == 0 && !end {
		return nil
	}
	c := flow.Chunk[T]{Part: b.batch, IDs: flow.ListIDs(b.ids), Values: b.vals, End: end}
	b.vals, b.ids = nil, nil
	return b.out.Push(ctx, c)
}

// release returns unsent buffers.
func (b *rowBuffer[T]) release() {
	slicepool.Recycle(b.vals)
	slicepool.Recycle(b.ids)
	b.vals, b.ids = nil, nil
}

// maxRecordBytes is the longest record (a CSV record, a JSON line) that a
// text source reads: past it the run fails, so that a hostile file, such
// as a small compressed stream of one endless line, cannot make the
// reader hold gigabytes.
const maxRecordBytes = 64 << 20

// recordLimit fails a read that would take the record being read, which
// starts at the part's mark, past maxRecordBytes (give or take the read
// buffer).
// With a guard (CSV), it also stops before a record with more fields than
// the guard allows.
type recordLimit struct {
	r     io.Reader
	part  *textPart
	n     int64 // bytes read
	guard *fieldGuard
}

func (l *recordLimit) Read(b []byte) (int, error) {
	if l.n-l.part.mark > maxRecordBytes {
		return 0, fmt.Errorf("a record longer than %d bytes", maxRecordBytes)
	}
	g := l.guard
	if g != nil && g.tripped > 0 {
		return 0, g.err()
	}
	n, err := l.r.Read(b)
	if g != nil && g.max > 0 {
		if k := g.scan(b[:n]); k < n {
			n, err = k, nil
		}
	}
	l.n += int64(n)
	return n, err
}

// pacer tells a loop that input can make long, such as one over blank or
// skipped lines, which push nothing and so never meet a send's check of
// the context, when to check it: every 1024 turns or MiB read.
type pacer struct {
	turns int
	bytes int64
}

// check returns ctx's error, every 1024 turns or MiB, for a turn that
// read n bytes; nil between.
func (p *pacer) check(ctx context.Context, n int) error {
	p.turns++
	p.bytes += int64(n)
	if p.turns < 1024 && p.bytes < 1<<20 {
		return nil
	}
	p.turns, p.bytes = 0, 0
	return ctx.Err()
}

// bom is the UTF-8 byte order mark, which spreadsheet programs write at
// the start of the CSV files they save; a text file that starts with it
// is read from after it. Row IDs and offsets still count it.
const bom = "\ufeff"

// skipBOM discards a byte order mark at the start of r and returns its
// length: 3 or 0.
func skipBOM(r *bufio.Reader) int64 {
	if b, _ := r.Peek(len(bom)); string(b) == bom {
		r.Discard(len(bom))
		return int64(len(bom))
	}
	return 0
}

// DataFingerprint fingerprints the files of the dataset
// (flow.DataFingerprinter): each file's path, size and modification time,
// and its contents, whole for a file of up to 128 KiB, else its first and
// last 64 KiB.
func (s *textSource[T]) DataFingerprint(ctx context.Context, env flow.Env) (string, error) {
	if s.err != nil {
		return "", s.err
	}
	ds, err := s.cfg.Discover(s.root, s.format.files())
	if err != nil {
		return "", err
	}
	return datasource.FilesFingerprint(ctx, ds, datasource.HashSample)
}
