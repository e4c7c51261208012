package shards

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/firsterr"
)

// Parquet returns a sink that writes the stream's values, structs
// of type T mapped to columns by their parquet tags, as sharded Parquet
// files in dir, and a manifest of them.
//
// Options: [RowsPerFile], [BytesPerFile], [RowGroupRows], [PageSize],
// [Codec], [ZstdLevel], [Writers], [RowIDColumn], [PartitionBy],
// [MaxOpenPartitions], [Overwrite], [Continue].
//
// # Files
//
// Files are named part-<rank>-<seq>.parquet, both numbers zero-padded to
// five digits (part-00000-00003.parquet), and sort by name in seq order
// while seq is below 100000. With one writer, seq counts the files in
// stream order. With [Writers](n), writer w numbers its files w, w+n, w+2n,
// …; a writer that writes fewer files than another leaves gaps. With
// [PartitionBy], every partition directory has its own sequence. Files
// are compressed with zstd unless [Codec] says otherwise, and carry the
// pipeline's fingerprint ([flow.Env]) in their key-value metadata as
// rowflow.fingerprint. A file ends when [RowsPerFile] or [BytesPerFile]
// says so; by default each writer writes one file.
//
// # Determinism
//
// The files' names and bytes, and the manifest, are a function of the
// stream's values and IDs, the options, the pipeline's fingerprint and the
// versions of rowflow and parquet-go: not of time, the machine, the
// directory's name, or the parallelism of the stages upstream, since the
// sink sees the same ordered stream whatever that parallelism (unless a
// stage upstream is Unordered), nor of how the stream is cut into chunks.
// The files do depend on [Writers], which chooses which rows go together.
// created_by is a constant.
//
// # Crash safety and failure
//
// Each file is written under a hidden temporary name in its final
// directory (.part-….parquet.tmp-<random>) and fsynced when complete.
// When the run succeeds, every file is renamed to its final name, the
// directories are fsynced, and the manifest [ManifestName](rank) is
// written last, the same way (temporary name, fsync, rename, fsync of the
// directory). The manifest is the rank's commit record: its rename is the
// commit point, and it lists exactly the rank's files. When the run fails
// or is cancelled, the sink removes its temporary files and the
// directories it created, if empty, and fsyncs what it changed: no file
// of a failed run ever has a final name, and the directory is left as it
// was (but see [Overwrite]). Files are created with mode 0644 less the
// umask, as os.Create gives.
//
// A run killed at any moment (SIGKILL, a lost machine) and started again
// ends with the output an uninterrupted run writes, byte for byte, with no
// option needed (with [Continue], the rerun goes on from the last file
// the killed run completed instead): the rerun removes the hidden
// temporary files of the rank
// (those of other ranks are left alone), writes its files again, and at
// its commit finds the files that a commit interrupted before its manifest
// left under final names. Each such file must hold exactly the bytes the
// rerun wrote under that name: it is kept, and the rerun's copy dropped.
// A rerun of a rank that has committed, with the same fingerprint, is
// checked the same way and changes nothing on disk when its output is the
// same: a retried rank (a replaced pod with the same index) never
// duplicates or alters output. The run fails, leaving the directory as it
// was, if a file of the rank already there holds other bytes or is not
// one the run writes (the input changed, or the pipeline is not
// deterministic: an Unordered stage upstream), and before writing
// anything if the rank's manifest is of another pipeline (another
// fingerprint) or of another manifest version. [Overwrite] replaces the
// output in those cases. Two runs of one rank at once in one directory
// would mix their files: a run holds an exclusive lock (flock) on the
// hidden file .rank-<rank>.lock from its start to the end of its commit,
// and a second run of the rank fails at once with an error that says so.
// The kernel drops the lock of a killed process. Where flock is not
// available (Windows, some network file systems), runs are not excluded,
// and a scheduler must not start a replacement while the old process may
// still run.
//
// # Partitioning
//
// With [PartitionBy], rows go to dir/col=value/…. Column names and values
// are escaped with Hive's %XX escapes (upper-case hex), so that a
// directory name can hold any value and is decoded by url.PathUnescape:
// control characters (NUL included), DEL, the characters
// " # % ' * / : < = > ? [ \ ] ^ { | } ~, bytes that are not valid UTF-8,
// and every '.' of a value that is "." or of a run of two or more dots. A column name starting with '.' or '_' has that
// character escaped, so that dataset discovery does not skip the
// directory. The empty value (and a nil pointer) is
// __HIVE_DEFAULT_PARTITION__; the value "__HIVE_DEFAULT_PARTITION__"
// itself is escaped to stay distinct. A value longer than 128 bytes
// escaped is cut and suffixed with '~' and 32 hex digits of its SHA-256,
// so that it stays distinct and the name short; the manifest records
// every file's exact values.
//
// # Parallelism and cost
//
// With one writer, the sink runs in the goroutine that feeds it. With
// [Writers](n), it starts n goroutines at its first chunk of values, one
// per writer, each with its own Parquet writer, and joins them before it returns
// from Close: none outlives the run. Values are handed to parquet-go's typed writer
// (GenericWriter[T]) straight from the chunks, in batches of 1024 rows
// aligned on the row group, and copied only where a chunk ends inside a
// batch. A writer holds a row group of encoded pages in memory.
// [RowIDColumn] goes through parquet-go's dynamic rows instead, which
// costs more per row.
//
// # Errors
//
// A bad option, or a T that parquet-go cannot write, is found when the
// sink is built: [flow.Pipeline.To] keeps the error, and the run fails
// with it before writing anything. Errors of a run name the directory, the
// file and, where known, the partition and row ID being written.
func Parquet[T any](dir string, opts ...ParquetOption) flow.Sink {
	plan, err := newPQPlan[T](dir, opts)
	return flow.NewSink[T](&parquetSink[T]{dir: dir, plan: plan, err: err})
}

type parquetSink[T any] struct {
	dir  string
	plan *pqPlan[T]
	err  error
}

// Info does not name the directory: writing the same stream elsewhere is
// the same pipeline, with the same fingerprint. Its settings are what
// decides the files' contents and layout, so that a run continuing an
// output (Continue) with other settings does not keep files written with
// the old ones.
func (s *parquetSink[T]) Info() flow.Info {
	name := "parquet-shards"
	if s.plan != nil && s.plan.text != nil {
		name = s.plan.format + "-shards"
	}
	if s.plan == nil {
		return flow.Info{Name: name}
	}
	c := &s.plan.cfg
	schema := ""
	if s.plan.schema != nil {
		schema = s.plan.schema.String()
	}
	if s.plan.text != nil {
		schema = s.plan.text.schema
	}
	// The rank is the run's, which the pipeline's fingerprint covers.
	settings := fmt.Sprintf("rows=%d bytes=%d group=%d page=%d codec=%q text=%v level=%d writers=%d id=%q by=%q schema=%q",
		c.rowsPerFile, c.bytesPerFile, c.rowGroupRows, c.pageSize, c.codecName, c.textCodec, c.zstdLevel, c.writers, c.rowIDColumn, c.partitionBy, schema)
	return flow.Info{Name: name, Settings: settings}
}

// Err reports a bad option or a T that cannot be written, like the Err
// method of sources that flow.From checks.
func (s *parquetSink[T]) Err() error { return s.err }

func (s *parquetSink[T]) NewConsumer(env flow.Env) flow.Consumer[T] {
	return &parquetConsumer[T]{sink: s, env: env, err: s.err}
}

// parquetConsumer is one run of Parquet.
type parquetConsumer[T any] struct {
	sink    *parquetSink[T]
	env     flow.Env
	err     error // a build error or the first failure; later calls return it
	run     *pqRun[T]
	writers []*writer[T]
	pool    *writerPool[T] // with Writers(n > 1), once started
	parts   int64          // partitions seen: End chunks
	cont    *continuation  // with Continue
}

// open checks the directory and makes the writers.
func (c *parquetConsumer[T]) open() error {
	plan := c.sink.plan
	c.run = &pqRun[T]{plan: plan, env: c.env, out: newOutputDir(plan.what, plan.ext, plan.dir, c.env.Rank, plan.cfg.overwrite, c.env.Fingerprint)}
	if t := plan.cfg.tracker; t != nil {
		c.cont = &continuation{t: t, out: c.run.out}
		c.run.out.continuing = true
	}
	if err := c.run.out.prepare(); err != nil {
		return err
	}
	for s := range plan.cfg.writers {
		c.writers = append(c.writers, makeWriter(c.run, s))
	}
	if p := c.run.out.progress; p != nil { // Continue: one writer, no PartitionBy
		c.writers[0].done = c.cont.resume(p)
		c.writers[0].flat.files = len(p.Files)
	}
	return nil
}

// Consume routes the chunk's partition to its writer: the k-th partition
// of the stream to writer k % n.
func (c *parquetConsumer[T]) Consume(ctx context.Context, ch flow.Chunk[T]) error {
	if c.err == nil && c.run == nil {
		c.err = c.open()
	}
	if c.err != nil {
		ch.Release()
		return c.err
	}
	to := int(c.parts % int64(len(c.writers)))
	if ch.End {
		c.parts++
	}
	if len(c.writers) == 1 {
		err := c.consumeOne(&ch)
		ch.Release()
		c.err = err
		return err
	}
	if len(ch.Values) == 0 {
		ch.Release()
		return nil
	}
	if c.pool == nil {
		c.pool = startWriterPool(ctx, c.sink.plan.what, c.writers)
	}
	if err := c.pool.send(ctx, to, ch); err != nil {
		c.err = err
		return err
	}
	return nil
}

// consumeOne writes c with the only writer, and tells the continuation,
// if any, of the files that ended in it.
func (c *parquetConsumer[T]) consumeOne(ch *flow.Chunk[T]) error {
	w := c.writers[0]
	if c.cont != nil && ch.Len() > 0 {
		if err := c.cont.next(ch.IDs.At(0)); err != nil {
			return err
		}
	}
	if err := w.consume(ch); err != nil {
		return err
	}
	return c.cont.sealed(ch.Part, w.sealed, ch.IDs, w.done)
}

// Close commits the run's files if err is nil and the run went well, and
// removes them otherwise. It returns the error that made it fail, if the
// run had not already failed with err.
func (c *parquetConsumer[T]) Close(err error) error {
	if err == nil && c.err == nil && c.run == nil {
		c.err = c.open() // an empty stream still checks the directory and writes a manifest
	}
	failed := err != nil || c.err != nil
	if c.pool != nil {
		if perr := c.pool.close(!failed); perr != nil && !failed {
			c.err, failed = perr, true
		}
	}
	if !failed && c.pool == nil {
		for _, s := range c.writers {
			if c.err = s.finish(); c.err != nil {
				failed = true
				break
			}
		}
	}
	if failed {
		return c.abort(err)
	}
	files, m := c.manifest()
	if c.err = c.run.out.commit(files, m); c.err != nil {
		return c.err
	}
	return nil
}

// abort removes everything the run wrote. It returns the consumer's own
// error if the run did not fail with err, and otherwise what went wrong
// while cleaning up, which the run reports with err or not at all.
func (c *parquetConsumer[T]) abort(err error) error {
	var cleanup error
	if c.run != nil {
		for _, s := range c.writers {
			s.abort()
		}
		cleanup = c.run.out.abort()
	}
	if err == nil {
		return errors.Join(c.err, cleanup)
	}
	return cleanup
}

// manifest returns the run's files, sorted by path, and their manifest.
func (c *parquetConsumer[T]) manifest() ([]doneFile, *Manifest) {
	plan := c.sink.plan
	var files []doneFile
	for _, s := range c.writers {
		files = append(files, s.done...)
	}
	slices.SortFunc(files, func(a, b doneFile) int { return cmp.Compare(a.Path, b.Path) })
	m := &Manifest{
		Version:      ManifestVersion,
		Fingerprint:  c.env.Fingerprint,
		Job:          c.env.Job,
		Rank:         c.env.Rank,
		World:        max(c.env.World, 1),
		Writers:      plan.cfg.writers,
		Codec:        plan.cfg.codecName,
		CodecLevel:   plan.level,
		RowGroupRows: plan.cfg.rowGroupRows,
		RowIDColumn:  plan.cfg.rowIDColumn,
		PartitionBy:  plan.cfg.partitionBy,
		Files:        make([]ManifestFile, 0, len(files)),
	}
	if t := plan.text; t != nil {
		m.Format, m.Codec, m.CodecLevel, m.RowGroupRows, m.Schema = plan.format, t.codec.String(), "", 0, t.schema
	} else {
		m.Schema = plan.schema.String()
	}
	for _, f := range files {
		m.Files = append(m.Files, f.ManifestFile)
		m.Rows += f.Rows
		m.Bytes += f.Bytes
	}
	return files, m
}

// writerQueue is the number of chunks that may wait for a writer's
// goroutine. Whole partitions go to one writer, so the queue holds about
// two partitions of the default size: the router can move on to the next
// writer's partition while this one encodes.
const writerQueue = 32

// writerPool runs each writer of a consumer in its own goroutine, in a
// firsterr.Group: the first writer that fails cancels the others.
//
// The goroutines run under a context of their own, derived from the first
// Consume's without its cancellation: the run's context is cancelled
// before Close is called, even when the run succeeds, and the goroutines
// must still finish their files then. Close(err) with an error cancels
// it. Sends to a goroutine select on the Consume context, and on the pool
// failing.
type writerPool[T any] struct {
	ins []chan flow.Chunk[T]
	ctx context.Context
	g   *firsterr.Group
}

var errAborted = errors.New("shards: the run was aborted")

func startWriterPool[T any](ctx context.Context, what string, writers []*writer[T]) *writerPool[T] {
	p := &writerPool[T]{}
	p.g, p.ctx = firsterr.New(context.WithoutCancel(ctx), func(v any) error {
		return fmt.Errorf("shards: %s: %w", what, flow.Recovered(v))
	})
	for _, s := range writers {
		in := make(chan flow.Chunk[T], writerQueue)
		p.ins = append(p.ins, in)
		p.g.Go(func() error { return p.work(s, in) })
	}
	return p
}

// work writes the chunks that come in, and finishes the writer's files
// when the channel is closed.
func (p *writerPool[T]) work(s *writer[T], in <-chan flow.Chunk[T]) error {
	for {
		select {
		case c, ok := <-in:
			if !ok {
				return s.finish()
			}
			err := s.consume(&c)
			c.Release()
			if err != nil {
				return err
			}
		case <-p.ctx.Done():
			return nil
		}
	}
}

// send hands c to the writer's goroutine.
func (p *writerPool[T]) send(ctx context.Context, to int, c flow.Chunk[T]) error {
	select {
	case p.ins[to] <- c:
		return nil
	case <-ctx.Done():
		c.Release()
		return ctx.Err()
	case <-p.g.Failed():
		c.Release()
		return p.g.Err()
	}
}

// close ends the goroutines and waits for them: with commit, by closing
// their channels, so that they write what they hold and finish their
// files; without, by cancelling them. It returns the first writer's error.
func (p *writerPool[T]) close(commit bool) error {
	if commit {
		for _, in := range p.ins {
			close(in)
		}
	} else {
		p.g.Cancel(errAborted)
	}
	err := p.g.Wait()
	for _, in := range p.ins {
		if !commit {
			close(in)
		}
		for c := range in {
			c.Release()
		}
	}
	return err
}
