package operators

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/linkage"
	"github.com/rowflow/rowflow/internal/objstore"
	"github.com/rowflow/rowflow/internal/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// CacheOption configures [Cache]: [OnDisk], [WithCodec], [CacheKey],
// [Rebuild].
type CacheOption interface{ cacheOption() }

type cacheConfig struct {
	path    string
	codec   any // Codec[T] for the cache's T
	key     string
	rebuild bool
}

type cacheOpt struct {
	name  string
	apply func(*cacheConfig) error
}

func (cacheOpt) cacheOption() {}

// OnDisk keeps the cache in the file at path instead of in memory, for
// data larger than memory: values are encoded with the [Codec]
// ([NumbersCodec] for unnamed slices of [FixedNumber] types such as
// []int32, gob for other types, unless [WithCodec] says otherwise) and
// compressed with zstd, in records of up to 1024 rows. The file appears
// under its name only once the first pass has ended successfully; until
// then it is written under a temporary name beside it, removed if the
// pass fails. The temporary of a pass whose process died (killed, say) is
// removed by the next run of the cache: a pass holds a file lock on its
// temporary, and a run removes those no live pass holds (where the system
// has file locks).
//
// path may be an s3://bucket/key URL (credentials and endpoint as for the
// sources: the AWS environment variables and shared files): the first
// pass writes the file to a temporary in os.TempDir and uploads it under
// key once the pass has ended successfully (an object store has no
// rename), so that the key never holds a partial cache; replays read it
// back with ranged reads, and fail, rather than mix versions, if the
// object is replaced while they read it. A bucket that does not exist
// fails the run before the first pass computes a row.
func OnDisk(path string) CacheOption {
	return cacheOpt{"OnDisk", func(c *cacheConfig) error {
		if path == "" {
			return fmt.Errorf("OnDisk(\"\"): empty path")
		}
		if objstore.IsURL(path) {
			if _, key, err := objstore.ParseURL(path); err != nil || key == "" || strings.HasSuffix(key, "/") {
				return fmt.Errorf("OnDisk(%q): want s3://bucket/key, the cache object's URL", path)
			}
		}
		c.path = path
		return nil
	}}
}

// WithCodec sets how a disk cache encodes values (default [NumbersCodec]
// for []int32 and other slices of [FixedNumber] types, else [GobCodec]).
// The codec's type must be the cache's; a mismatch is kept as the
// source's error.
func WithCodec[T any](c Codec[T]) CacheOption {
	return cacheOpt{"WithCodec", func(cfg *cacheConfig) error {
		if c == nil {
			return fmt.Errorf("WithCodec(nil)")
		}
		cfg.codec = c
		return nil
	}}
}

// CacheKey adds key to what identifies the cached pipeline. The pipeline's
// fingerprint covers its seed and the names, types and settings of its
// source and stages (a Batch's size, a source's row count and options),
// not its user functions (a Map's function) or the values an in-memory
// source holds: give a key that changes when they do, such as a version
// string. The files a source reads are covered by the data fingerprint
// (see [Cache]).
func CacheKey(key string) CacheOption {
	return cacheOpt{"CacheKey", func(c *cacheConfig) error { c.key = key; return nil }}
}

// Rebuild makes a disk cache built by another pipeline, written by another
// version of this package, or whose header is cut, be rebuilt instead of
// refused. A file that is no cache file is refused all the same.
func Rebuild() CacheOption {
	return cacheOpt{"Rebuild", func(c *cacheConfig) error { c.rebuild = true; return nil }}
}

// Cache returns a source that reads p once and replays it afterwards:
// the first run of the source (or its first epoch, with
// [flow.Pipeline.Epochs]) runs p and keeps its items as they stream
// through; later runs and epochs replay them, with identical values (as
// far as the [Codec] keeps them: see [GobCodec]), IDs and partition
// numbers, without running p. Put random stages that should
// change per epoch after the cache.
//
// The cache is identified by p's fingerprint (flow.Pipeline.Fingerprint),
// the position it starts from if it was resumed (flow.Pipeline.Resume), T, the [CacheKey] and the type of
// the [Codec]. In memory it lives in the source value. On disk ([OnDisk])
// a file written by another pipeline, or with another codec, is refused
// with an error that says so, or rebuilt with [Rebuild]; it is never
// replayed. A first pass that fails, or that is stopped before it has
// read all of p, keeps nothing.
//
// What was kept is also keyed by the data it was read from: the data
// fingerprint of p's source (flow.Pipeline.DataFingerprint; for the
// Parquet, CSV and JSON Lines sources, each file's path, size and
// modification time, and its footer's checksum or a hash of its
// contents), taken when a run of the cache starts. A cache built from
// other data (the files changed since, or a cache file built from other
// files put in its place) is stale: it is rebuilt, not refused, since it
// is this pipeline's, and never replayed. The disk cache's file records
// the data fingerprint it was built for.
//
// A run resumed from a checkpoint starts at a later partition: a built
// cache replays from there, the disk cache reading only the few bytes that
// head each record before it; a cache not yet built (a checkpoint in the
// first pass, or a memory cache in a new process) runs p from its start
// again, and keeps the whole stream.
//
// A cache does not divide its rows among ranks: a run of several ranks
// (flow.Pipeline.WithRank) refuses it before reading a row; wrap it in
// [EvenRanks], which gives every rank its share of the cached stream. p keeps the rank it was built with (a cached pipeline
// with a rank of its own caches that rank's share).
//
// p must have no sink and produce T. Memory: in memory, the whole stream.
// On disk, the first pass holds each partition whole from its first chunk
// until it is written and handed on (so p's partition size bounds it); a
// replay holds one record (up to 1024 rows) per partition being read.
func Cache[T any](p *flow.Pipeline, opts ...CacheOption) flow.Source[T] {
	c := &cacheSource[T]{p: p, codec: defaultCodec[T]()}
	c.err = c.configure(opts)
	return c
}

// defaultCodec returns the codec a disk cache of T uses unless told:
// NumbersCodec for unnamed slices of fixed-size numbers, else gob.
func defaultCodec[T any]() Codec[T] {
	var c any = GobCodec[T]{}
	switch any(*new(T)).(type) {
	case []int8:
		c = NumbersCodec[int8]{}
	case []int16:
		c = NumbersCodec[int16]{}
	case []int32:
		c = NumbersCodec[int32]{}
	case []int64:
		c = NumbersCodec[int64]{}
	case []uint8:
		c = NumbersCodec[uint8]{}
	case []uint16:
		c = NumbersCodec[uint16]{}
	case []uint32:
		c = NumbersCodec[uint32]{}
	case []uint64:
		c = NumbersCodec[uint64]{}
	case []float32:
		c = NumbersCodec[float32]{}
	case []float64:
		c = NumbersCodec[float64]{}
	}
	return c.(Codec[T])
}

func (c *cacheSource[T]) configure(opts []CacheOption) error {
	if c.p == nil {
		return fmt.Errorf("operators: Cache: nil pipeline")
	}
	if err := c.p.Err(); err != nil {
		return err
	}
	if got, want := linkage.OutType(c.p), reflect.TypeFor[T](); got != want {
		return fmt.Errorf("operators: Cache[%v] of a pipeline that produces %v", want, got)
	}
	for _, o := range opts {
		o, ok := o.(cacheOpt)
		if !ok || o.apply == nil {
			return fmt.Errorf("operators: cache: nil option")
		}
		if err := o.apply(&c.cfg); err != nil {
			return fmt.Errorf("operators: cache: %w", err)
		}
	}
	if c.cfg.codec != nil {
		codec, ok := c.cfg.codec.(Codec[T])
		if !ok {
			return fmt.Errorf("operators: cache: WithCodec of %T for values of type %v", c.cfg.codec, reflect.TypeFor[T]())
		}
		c.codec = codec
	}
	h := sha256.New()
	fmt.Fprintf(h, "rowflow cache v1\n%s\n%v\n%q\n%T\n", c.p.Fingerprint(), reflect.TypeFor[T](), c.cfg.key, c.codec)
	if at := linkage.StartOf(c.p); at != "" {
		// A pipeline that starts later gives another stream.
		fmt.Fprintf(h, "starts %s\n", at)
	}
	c.id = hex.EncodeToString(h.Sum(nil)[:16])
	return nil
}

type cacheSource[T any] struct {
	p     *flow.Pipeline
	cfg   cacheConfig
	codec Codec[T]
	id    string // what identifies the cached stream
	err   error

	mu    sync.Mutex
	parts []cachedPart[T] // the memory cache, once complete
	built bool
	data  string // the data fingerprint the memory cache was built for
}

// cachedPart is one partition of the stream, as it came.
type cachedPart[T any] struct {
	batch int64
	ids   []rowid.ID
	vals  []T
}

// Info's settings are the cache's ID: what it replays is the cached
// pipeline's stream.
func (c *cacheSource[T]) Info() flow.Info { return flow.Info{Name: "cache", Settings: "id=" + c.id} }

// Err reports a bad option or pipeline.
func (c *cacheSource[T]) Err() error { return c.err }

func (c *cacheSource[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	if c.err != nil {
		return func(yield func(flow.Partition[T], error) bool) { yield(flow.Partition[T]{}, c.err) }
	}
	if c.cfg.path != "" {
		return c.diskPartitions(ctx)
	}
	data, err := c.p.DataFingerprint(ctx)
	if err != nil {
		return func(yield func(flow.Partition[T], error) bool) {
			yield(flow.Partition[T]{}, fmt.Errorf("operators: cache: fingerprinting the data: %w", err))
		}
	}
	c.mu.Lock()
	parts, built := c.parts, c.built && c.data == data
	c.mu.Unlock()
	if built {
		return replay(parts)
	}
	return c.build(ctx, data, nil)
}

// DataFingerprint is the cached pipeline's (flow.DataFingerprinter): a
// cache of a cache is stale when the data under both is.
func (c *cacheSource[T]) DataFingerprint(ctx context.Context, env flow.Env) (string, error) {
	if c.err != nil {
		return "", c.err
	}
	return c.p.DataFingerprint(ctx)
}

// replay yields the kept partitions.
func replay[T any](parts []cachedPart[T]) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		for _, cp := range parts {
			if !yield(cp.partition(), nil) {
				return
			}
		}
	}
}

// partition returns a partition that pushes cp in chunks.
func (cp cachedPart[T]) partition() flow.Partition[T] {
	return flow.Partition[T]{Part: cp.batch, Read: func(ctx context.Context, out flow.Emitter[T]) error {
		const size = 1024
		for lo := 0; lo == 0 || lo < len(cp.vals); lo += size {
			hi := min(lo+size, len(cp.vals))
			vals := append(slicepool.Alloc[T](hi-lo), cp.vals[lo:hi]...)
			ids := append(slicepool.Alloc[rowid.ID](hi-lo), cp.ids[lo:hi]...)
			c := flow.Chunk[T]{Part: cp.batch, IDs: flow.ListIDs(ids), Values: vals, End: hi == len(cp.vals)}
			if err := out.Push(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}}
}

// build runs p, yields each partition as it completes, and hands every
// partition to keep (the disk writer), or keeps them in memory, for data
// fingerprint data, if keep is nil. The cache is complete only if the
// stream ended.
func (c *cacheSource[T]) build(ctx context.Context, data string, keep func(cachedPart[T]) error) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		var parts []cachedPart[T]
		var cur *cachedPart[T]
		for ch, err := range flow.Chunks[T](ctx, c.p) {
			if err != nil {
				yield(flow.Partition[T]{}, err)
				return
			}
			if cur == nil {
				cur = &cachedPart[T]{batch: ch.Part}
			}
			cur.vals = append(cur.vals, ch.Values...)
			cur.ids = ch.IDs.AppendTo(cur.ids)
			end := ch.End
			ch.Release()
			if !end {
				continue
			}
			cp := *cur
			cur = nil
			if keep != nil {
				if err := keep(cp); err != nil {
					yield(flow.Partition[T]{}, err)
					return
				}
			} else {
				parts = append(parts, cp)
			}
			if !yield(cp.partition(), nil) {
				return
			}
		}
		if keep == nil {
			c.mu.Lock()
			if !c.built || c.data != data {
				c.parts, c.built, c.data = parts, true, data
			}
			c.mu.Unlock()
		}
	}
}
