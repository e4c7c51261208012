package shards

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync/atomic"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/firsterr"
)

// parquetSink is the sink of every shard writer: its plan says how the
// values become files of one format.
type parquetSink[T any] struct {
	dir  string
	plan *pqPlan[T]
	err  error
}

// newShardSink returns the sink of a shard writer; with Continue, one
// whose stage has a Continuation (flow.SinkStage).
func newShardSink[T any](dir string, plan *pqPlan[T], err error) flow.Sink {
	s := &parquetSink[T]{dir: dir, plan: plan, err: err}
	if err == nil && plan.cfg.continuing {
		return flow.NewSink[T](continuableSink[T]{s})
	}
	return flow.NewSink[T](s)
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

// open checks the directory and makes the writers. ctx is the run's: the
// requests of output in a bucket use it.
func (c *parquetConsumer[T]) open(ctx context.Context) error {
	plan := c.sink.plan
	c.run = &pqRun[T]{plan: plan, env: c.env, out: newOutputDir(plan.what, plan.ext, plan.dir, c.env.Rank, plan.cfg.overwrite, c.env.Fingerprint)}
	c.run.out.setContext(ctx)
	if plan.cfg.continuing {
		c.cont = &continuation{env: c.env, out: c.run.out}
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
		c.err = c.open(ctx)
	}
	if c.err != nil {
		c.sink.plan.drop(&ch)
		return c.err
	}
	defer c.run.out.watch(ctx)()
	to := int(c.parts % int64(len(c.writers)))
	if ch.End {
		c.parts++
	}
	if len(c.writers) == 1 {
		err := c.consumeOne(&ch)
		c.sink.plan.drop(&ch)
		c.err = err
		return err
	}
	if len(ch.Values) == 0 {
		ch.Release()
		return nil
	}
	if c.pool == nil {
		c.pool = startWriterPool(ctx, c.sink.plan, c.writers)
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
	dropped := 0
	if c.cont != nil {
		var kept flow.Chunk[T]
		kept, dropped = skipKept(c.cont, ch)
		if kept.Len() > 0 {
			if err := c.cont.next(kept.IDs.At(0)); err != nil {
				return err
			}
		}
		ch = &kept
	}
	if err := w.consume(ch); err != nil {
		return err
	}
	return c.cont.sealed(w.sealed, ch.IDs, dropped, w.done)
}

// Close commits the run's files if err is nil and the run went well, and
// removes them otherwise. It returns the error that made it fail, if the
// run had not already failed with err.
func (c *parquetConsumer[T]) Close(err error) error {
	if err == nil && c.err == nil && c.run == nil {
		c.err = c.open(context.Background()) // an empty stream still checks the directory and writes a manifest
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
		Version:      manifestVersion,
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

// batchQueue is the number of column batches that may wait for a
// writer's goroutine (Parquet of column batches, whose chunks are batches
// of a few thousand rows or of whole row groups), and queuedGroups how many row
// groups of rows they may hold together: two, so that the router can
// hand a writer the rest of its partition, and move on to the next
// writer's, while the writer encodes a row group.
const (
	batchQueue   = 256
	queuedGroups = 2
)

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
	plan *pqPlan[T]
	ins  []chan flow.Chunk[T]
	ctx  context.Context
	g    *firsterr.Group
	// For plans whose chunks are column batches (batched): the rows
	// queued for each writer, at most maxRows unless one chunk holds more,
	// and a signal to the router that a writer took some.
	queued  []atomic.Int64
	taken   []chan struct{}
	maxRows int64
}

var errAborted = errors.New("shards: the run was aborted")

func startWriterPool[T any](ctx context.Context, plan *pqPlan[T], writers []*writer[T]) *writerPool[T] {
	p := &writerPool[T]{plan: plan}
	p.g, p.ctx = firsterr.New(context.WithoutCancel(ctx), func(v any) error {
		return fmt.Errorf("shards: %s: %w", plan.what, &flow.PanicError{Value: v, Stack: debug.Stack()})
	})
	queue := writerQueue
	if plan.batched {
		queue, p.maxRows = batchQueue, queuedGroups*plan.cfg.rowGroupRows
		p.queued, p.taken = make([]atomic.Int64, len(writers)), make([]chan struct{}, len(writers))
		for i := range p.taken {
			p.taken[i] = make(chan struct{}, 1)
		}
	}
	for i, s := range writers {
		in := make(chan flow.Chunk[T], queue)
		p.ins = append(p.ins, in)
		p.g.Go(func() error { return p.work(i, s, in) })
	}
	return p
}

// work writes the chunks that come in, and finishes the writer's files
// when the channel is closed.
func (p *writerPool[T]) work(i int, s *writer[T], in <-chan flow.Chunk[T]) error {
	for {
		select {
		case c, ok := <-in:
			if !ok {
				return s.finish()
			}
			n := c.Len()
			err := s.consume(&c)
			p.plan.drop(&c)
			if p.queued != nil {
				p.queued[i].Add(-int64(n))
				select {
				case p.taken[i] <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return err
			}
		case <-p.ctx.Done():
			return nil
		}
	}
}

// send hands c to the writer's goroutine, once the writer's queue has
// room for its rows.
func (p *writerPool[T]) send(ctx context.Context, to int, c flow.Chunk[T]) error {
	n := int64(c.Len())
	for {
		in, taken := p.ins[to], (<-chan struct{})(nil)
		if p.queued != nil {
			// Only this goroutine sends, so the rows queued can only fall
			// between this test and the send.
			if q := p.queued[to].Load(); q > 0 && q+n > p.maxRows {
				in, taken = nil, p.taken[to]
			}
		}
		select {
		case in <- c:
			if p.queued != nil {
				p.queued[to].Add(n)
			}
			return nil
		case <-taken:
		case <-ctx.Done():
			p.plan.drop(&c)
			return ctx.Err()
		case <-p.g.Failed():
			p.plan.drop(&c)
			return p.g.Err()
		}
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
			p.plan.drop(&c)
		}
	}
	return err
}
