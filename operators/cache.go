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
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// CacheOption configures [Cache]: [OnDisk], [CacheKey], [Rebuild].
type CacheOption interface{ cacheOption() }

type cacheConfig struct {
	path    string
	key     string
	rebuild bool
}

type cacheOpt struct {
	name  string
	apply func(*cacheConfig) error
}

func (cacheOpt) cacheOption() {}

// OnDisk keeps the cache in the file at path instead of in memory, for
// data larger than memory, in zstd-compressed records of up to 1024 rows.
// How values are encoded depends on their type:
//
//   - An unnamed slice of fixed-size numbers ([]int32 token lists,
//     []float32 features; any of int8 to int64, uint8 to uint64, float32
//     and float64 themselves, but neither a named slice type such as type
//     Tokens []int32 nor a slice of a named number type such as []Token)
//     is written as its length, then its numbers little-endian. Every number
//     keeps its bits. A replay decodes the rows of a record into one
//     array, each row a slice of it whose capacity ends with the row
//     (appending to a row copies it), so a row kept after the others are
//     dropped keeps its record's array alive. An empty row comes back as
//     nil.
//   - Every other type is encoded with encoding/gob, one gob stream per
//     record. It keeps what gob keeps: exported fields only (a channel or
//     function field is left out as an unexported one is), and a struct
//     without exported fields, or an interface value whose type is not
//     registered with gob.Register, fails the first pass. Gob leaves out
//     the fields that hold a zero value, so what comes back is not always
//     the value that went in: a struct's float field that is -0 comes back
//     as +0, a pointer field to a zero value (0, "", false) as nil, and an
//     empty slice field as nil. Each record carries its type's
//     description, which for small values costs more than the values.
//
// The file appears under its name only once the first pass has ended
// successfully; until then it is written under a temporary name beside
// it, removed if the pass fails. The temporary of a pass whose process
// died (killed, say) is removed by the next run of the cache: a pass holds
// a file lock on its temporary, and a run removes those no live pass holds
// (where the system has file locks).
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
// through; later runs and epochs replay them, with identical values (on
// disk, as far as their encoding keeps them: see [OnDisk]), IDs and
// partition numbers, without running p. Put random stages that should
// change per epoch after the cache.
//
// The cache is identified by p's fingerprint (flow.Pipeline.Fingerprint),
// the position it starts from if it was resumed (flow.Pipeline.Resume), T
// (and so how its values are encoded) and the [CacheKey]. In memory it
// lives in the source value. On disk ([OnDisk]) a file written by another
// pipeline is refused with an error that says so, or rebuilt with
// [Rebuild]; it is never replayed. A first pass that fails, or that is
// stopped before it has read all of p, keeps nothing.
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
	return newCache(p, codecOf[T](), opts)
}

// newCache returns the cache of p whose disk file encodes values with
// codec.
func newCache[T any](p *flow.Pipeline, codec codec[T], opts []CacheOption) *cacheSource[T] {
	c := &cacheSource[T]{p: p, codec: codec}
	c.err = c.configure(opts)
	return c
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
	codec codec[T] // the encoding of a disk cache's values
	id    string   // what identifies the cached stream
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
