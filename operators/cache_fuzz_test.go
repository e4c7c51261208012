package operators_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// FuzzCache checks Cache against the uncached pipeline. A seed draws the
// cached pipeline (a Slice or Generate source of int64s, strings, empty
// and not UTF-8 among them, structs or []float32 rows, with its partition
// and chunk sizes and parallelism, a counting Map and maybe a Filter), in
// memory or on disk, the codec (the default, GobCodec, or cacheFuzzCodec
// written here), the CacheKey, Rebuild, the epochs read from the cache, the
// consumer's parallelism and filter, a failure of the first pass (an
// error from Generate or from the Map at row k, the run's context
// cancelled from inside the Map, or the consumer stopping early), a
// damage to the cache file (cut short, or a byte flipped) and where a
// checkpoint is taken.
//
// The oracle is the uncached pipeline's stream, read once: every epoch
// read from the cache gives exactly its items (values, row IDs, order),
// with the epoch in their partition numbers. The rows the Map computes
// tell a replay (none) from a build (one pass); a second Cache on the
// same file with the same key replays it, Rebuild or not, while another
// key or codec is refused, or rebuilt with Rebuild. A first pass that
// fails or stops leaves no file under the cache's name and no temporary,
// and the next run builds the cache whole. A damaged file fails the run
// with an error naming it, after a prefix of the stream, or is rebuilt;
// it never gives other rows. A checkpoint taken after item k of a run
// reading from the cache, built or not, resumes at another parallelism
// to exactly the rest, and a resumed first pass keeps the whole stream.
func FuzzCache(f *testing.F) {
	for i := range testutil.FuzzSeeds(16) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 3)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		c := drawCacheCase(seed)
		t.Logf("case: %+v", *c)
		switch c.kind {
		case 0:
			fuzzCache(t, c, func(i int64) int64 { return int64(cacheMix(c.salt, i)) >> (i % 40) })
		case 1:
			fuzzCache(t, c, func(i int64) string { return cacheFuzzString(c.salt, i) })
		case 2:
			fuzzCache(t, c, func(i int64) cacheRec {
				return cacheRec{N: int64(cacheMix(c.salt, i)), S: cacheFuzzString(c.salt, i+7), F: cacheFuzzFloats(c.salt, i), Ok: i%3 == 1}
			})
		default:
			fuzzCache(t, c, func(i int64) []float32 { return cacheFuzzFloats(c.salt, i) })
		}
	})
}

// cacheRec is a struct value of a cache.
type cacheRec struct {
	N  int64
	S  string
	F  []float32
	Ok bool
}

// cacheCase is a drawn case of FuzzCache.
type cacheCase struct {
	kind       int // 0 int64, 1 string, 2 cacheRec, 3 []float32
	salt       uint64
	n          int  // rows of the source
	generate   bool // Generate, else Slice
	part       int  // the source's partition size
	chunk      int  // its chunk size
	srcPar     int  // the source's parallelism in the cached pipeline
	mapPar     int  // the counting Map's
	filter     bool // a Filter in the cached pipeline
	disk       bool
	codec      int // 0 the default, 1 GobCodec, 2 cacheFuzzCodec
	key        string
	rebuild    bool
	epochs     int
	par        int  // the consumer's parallelism
	consFilter bool // a Filter in the consumer
	failure    int  // 0 none, 1 an error at row failAt, 2 the context cancelled there, 3 the consumer stops after failAt items
	failAt     int
	damage     int     // 0 none, 1 cut short, 2 a byte flipped
	damageAt   float64 // where, as a fraction of the file
	damageXor  byte
	resumeAt   float64 // where the checkpoint is taken, as a fraction of the stream
	resumePar  int
}

func drawCacheCase(seed uint64) *cacheCase {
	r := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc908))
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	c := &cacheCase{
		kind:       r.IntN(4),
		salt:       r.Uint64(),
		n:          pick(0, 1, 7, 40, 150, 300),
		generate:   r.IntN(2) == 0,
		part:       pick(1, 3, 16, 64, 2000),
		chunk:      pick(1, 2, 5, 1024),
		srcPar:     pick(1, 1, 3),
		mapPar:     pick(1, 2, 4),
		filter:     r.IntN(3) == 0,
		disk:       r.IntN(4) > 0,
		codec:      r.IntN(3),
		key:        []string{"", "", "v1", "\xff\n"}[r.IntN(4)],
		rebuild:    r.IntN(3) == 0,
		epochs:     1 + r.IntN(3),
		par:        pick(1, 2, 4, 8),
		consFilter: r.IntN(4) == 0,
		failure:    r.IntN(4),
		damage:     r.IntN(3),
		damageAt:   r.Float64(),
		damageXor:  byte(1 + r.IntN(255)),
		resumeAt:   r.Float64(),
		resumePar:  pick(1, 2, 4, 8),
	}
	if r.IntN(8) == 0 {
		c.n, c.part = 1500, 2000 // more than one record (1024 rows) in a partition
	}
	if c.n > 0 {
		c.failAt = r.IntN(c.n)
	}
	return c
}

// cacheMix is splitmix64 of i under salt.
func cacheMix(salt uint64, i int64) uint64 {
	z := salt + uint64(i)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// cacheFuzzString gives empty strings, strings that are not UTF-8, and
// others.
func cacheFuzzString(salt uint64, i int64) string {
	h := cacheMix(salt, i)
	switch h % 5 {
	case 0:
		return ""
	case 1:
		return "\xff\xfe\x00" + strconv.FormatInt(i, 10) + "\x80"
	case 2:
		return "héllo, 世界 " + strconv.FormatUint(h, 36)
	case 3:
		return strings.Repeat("\n", int(h>>8%3)) + string(rune(h>>16%0x10000))
	default:
		return strings.Repeat("ab", int(h>>8%200))
	}
}

// cacheFuzzFloats gives rows of 0 to 5 numbers, nil or empty when 0, with
// infinities, a negative zero and a NaN with a payload among them.
func cacheFuzzFloats(salt uint64, i int64) []float32 {
	h := cacheMix(salt, i)
	n := int(h % 6)
	if n == 0 {
		if h&8 == 0 {
			return nil
		}
		return []float32{}
	}
	row := make([]float32, n)
	for k := range row {
		switch (h >> (4 * k)) % 7 {
		case 0:
			row[k] = float32(math.Inf(1 - 2*int(h>>40&1)))
		case 1:
			row[k] = float32(math.Copysign(0, -1))
		case 2:
			row[k] = math.Float32frombits(0x7fc00123)
		default:
			row[k] = float32(int64(h>>(3*k))%100000) / 7
		}
	}
	return row
}

// sameCacheValue reports whether a and b are the same value: floats by
// their bits, and an empty row the same as nil (gob and NumbersCodec
// decode an empty row as nil).
func sameCacheValue(a, b any) bool {
	switch a := a.(type) {
	case []float32:
		b := b.([]float32)
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				return false
			}
		}
		return true
	case cacheRec:
		b := b.(cacheRec)
		return a.N == b.N && a.S == b.S && a.Ok == b.Ok && sameCacheValue(a.F, b.F)
	default:
		return a == b
	}
}

// cacheKeep is the filters' predicate.
func cacheKeep(v any, mod uint64) bool {
	var h uint64
	switch v := v.(type) {
	case int64:
		h = uint64(v)
	case string:
		h = uint64(len(v))
	case []float32:
		h = uint64(len(v))
	case cacheRec:
		h = uint64(v.N)
	}
	return h%mod != mod-2
}

// cacheFuzzCodec is a codec other than gob and NumbersCodec: varints, and
// lengths before strings and rows.
type cacheFuzzCodec[T any] struct{}

func (cacheFuzzCodec[T]) Append(dst []byte, vals []T) ([]byte, error) {
	for _, v := range vals {
		dst = appendCacheFuzz(dst, v)
	}
	return dst, nil
}

func appendCacheFuzz(dst []byte, v any) []byte {
	switch v := v.(type) {
	case int64:
		return binary.AppendVarint(dst, v)
	case string:
		return append(binary.AppendUvarint(dst, uint64(len(v))), v...)
	case []float32:
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
		}
		return dst
	case cacheRec:
		dst = appendCacheFuzz(appendCacheFuzz(appendCacheFuzz(dst, v.N), v.S), v.F)
		if v.Ok {
			return append(dst, 1)
		}
		return append(dst, 0)
	}
	panic(fmt.Sprintf("cacheFuzzCodec: %T", v))
}

func (cacheFuzzCodec[T]) Decode(src []byte, n int) ([]T, error) {
	vals := make([]T, n)
	for i := range vals {
		var err error
		if src, err = decodeCacheFuzz(src, &vals[i]); err != nil {
			return nil, fmt.Errorf("value %d of %d: %w", i, n, err)
		}
	}
	if len(src) != 0 {
		return nil, fmt.Errorf("%d bytes after %d values", len(src), n)
	}
	return vals, nil
}

var errCacheFuzzShort = errors.New("short record")

func decodeCacheFuzz(src []byte, v any) ([]byte, error) {
	length := func(size uint64) (int, error) {
		l, w := binary.Uvarint(src)
		if w <= 0 || l > uint64(len(src)-w)/size {
			return 0, errCacheFuzzShort
		}
		src = src[w:]
		return int(l), nil
	}
	switch v := v.(type) {
	case *int64:
		x, w := binary.Varint(src)
		if w <= 0 {
			return src, errCacheFuzzShort
		}
		*v = x
		return src[w:], nil
	case *string:
		l, err := length(1)
		if err != nil {
			return src, err
		}
		*v = string(src[:l])
		return src[l:], nil
	case *[]float32:
		l, err := length(4)
		if err != nil || l == 0 {
			return src, err
		}
		*v = make([]float32, l)
		for k := range *v {
			(*v)[k] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*k:]))
		}
		return src[4*l:], nil
	case *cacheRec:
		var err error
		for _, f := range []any{&v.N, &v.S, &v.F} {
			if src, err = decodeCacheFuzz(src, f); err != nil {
				return src, err
			}
		}
		if len(src) == 0 || src[0] > 1 {
			return src, errCacheFuzzShort
		}
		v.Ok = src[0] == 1
		return src[1:], nil
	}
	return src, fmt.Errorf("cacheFuzzCodec: %T", v)
}

var errCacheFuzzFail = errors.New("the drawn failure")

// cacheRig holds a case's cached pipeline and what it counts.
type cacheRig[T any] struct {
	c     *cacheCase
	gen   func(int64) T
	p     *flow.Pipeline
	rows  atomic.Int64                                                  // the rows the counting Map computed
	hook  atomic.Pointer[func(k int64) error]                           // called with each count, when set
	genAt atomic.Int64                                                  // the index Generate fails at, or -1
	want  []flow.Item[T]                                                // the consumer's stream, every epoch
	build func(*flow.Pipeline, ...operators.CacheOption) flow.Source[T] // Cache with the drawn codec
	other func(*flow.Pipeline, ...operators.CacheOption) flow.Source[T] // Cache with another codec
}

// cacheRun runs p and returns its items up to the error that ended it.
func cacheRun[T any](ctx context.Context, p *flow.Pipeline) ([]flow.Item[T], error) {
	var got []flow.Item[T]
	for it, err := range flow.Items[T](ctx, p) {
		if err != nil {
			return got, err
		}
		got = append(got, it)
	}
	return got, nil
}

// sameCacheItems names the first difference between got and want, or
// returns "".
func sameCacheItems[T any](got, want []flow.Item[T]) string {
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.Part != w.Part || g.ID != w.ID || !sameCacheValue(g.Value, w.Value) {
			return fmt.Sprintf("item %d of %d: %+v, want %+v", i, len(want), g, w)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d items, want %d", len(got), len(want))
	}
	return ""
}

// cacheDirHolds fails unless dir holds exactly names (no temporaries).
func cacheDirHolds(t *testing.T, what, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Fatalf("%s: the cache's directory holds %q, want %q", what, got, names)
	}
}

func fuzzCache[T any](t *testing.T, c *cacheCase, gen func(int64) T) {
	r := &cacheRig[T]{c: c, gen: gen}
	r.genAt.Store(-1)
	var src flow.Source[T]
	opts := []sources.SliceOption{sources.PartitionItems(c.part), sources.ChunkSize(c.chunk)}
	if c.generate {
		src = sources.Generate(int64(c.n), func(i int64) (T, error) {
			if i == r.genAt.Load() {
				return *new(T), errCacheFuzzFail
			}
			return gen(i), nil
		}, opts...)
	} else {
		vals := make([]T, c.n)
		for i := range vals {
			vals[i] = gen(int64(i))
		}
		src = sources.Slice(vals, opts...)
	}
	r.p = flow.From(src).Parallel(c.srcPar).
		Via(operators.Map(func(v T) (T, error) {
			k := r.rows.Add(1) - 1
			if h := r.hook.Load(); h != nil {
				if err := (*h)(k); err != nil {
					return v, err
				}
			}
			return v, nil
		})).Parallel(c.mapPar)
	if c.filter {
		r.p = r.p.Via(operators.Filter(func(v T) bool { return cacheKeep(v, 5) }))
	}
	withCodec := func(c interface {
		Append([]byte, []T) ([]byte, error)
		Decode([]byte, int) ([]T, error)
	}) func(*flow.Pipeline, ...operators.CacheOption) flow.Source[T] {
		return func(p *flow.Pipeline, opts ...operators.CacheOption) flow.Source[T] {
			return operators.CacheWithCodec[T](p, c, opts...)
		}
	}
	switch c.codec {
	case 1:
		r.build, r.other = withCodec(operators.GobCodec[T]{}), withCodec(cacheFuzzCodec[T]{})
	case 2:
		r.build, r.other = withCodec(cacheFuzzCodec[T]{}), withCodec(operators.GobCodec[T]{})
	default:
		r.build, r.other = operators.Cache[T], withCodec(cacheFuzzCodec[T]{})
	}

	// The oracle: the uncached stream, and each epoch of it as the
	// consumer gives it.
	one, err := cacheRun[T](t.Context(), r.p)
	if err != nil {
		t.Fatalf("the uncached pipeline: %v", err)
	}
	if got := r.rows.Load(); got != int64(c.n) {
		t.Fatalf("the uncached pipeline computed %d rows of %d", got, c.n)
	}
	for e := range int64(c.epochs) {
		for _, it := range one {
			if c.consFilter && !cacheKeep(it.Value, 3) {
				continue
			}
			it.Part = epoch.Part(e, it.Part)
			r.want = append(r.want, it)
		}
	}
	// The flow's own run of the uncached pipeline under the consumer
	// agrees with the oracle.
	if got, err := cacheRun[T](t.Context(), r.consumer(r.p, c.par)); err != nil || sameCacheItems(got, r.want) != "" {
		t.Fatalf("the uncached pipeline under the consumer: %v, %s", err, sameCacheItems(got, r.want))
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "c.rfcache")
	cache := r.cache(path)
	r.check(t, "first pass", cache, c.par, int64(c.n))
	if c.disk {
		cacheDirHolds(t, "after the first pass", dir, "c.rfcache")
	}
	r.check(t, "replay", cache, c.resumePar, 0)
	r.reuse(t, cache, path)
	r.fail(t, filepath.Join(t.TempDir(), "c.rfcache"))
	if c.disk && c.damage > 0 {
		r.damage(t, path)
	}
	r.resume(t, cache, r.cache(filepath.Join(t.TempDir(), "c.rfcache")))
}

// options are the drawn cache options for a cache at path, then extra.
func (r *cacheRig[T]) options(path string, extra ...operators.CacheOption) []operators.CacheOption {
	var opts []operators.CacheOption
	if r.c.disk {
		opts = append(opts, operators.OnDisk(path))
	}
	if r.c.key != "" {
		opts = append(opts, operators.CacheKey(r.c.key))
	}
	if r.c.rebuild {
		opts = append(opts, operators.Rebuild())
	}
	return append(opts, extra...)
}

func (r *cacheRig[T]) cache(path string, extra ...operators.CacheOption) flow.Source[T] {
	return r.build(r.p, r.options(path, extra...)...)
}

// consumer reads src (a cache, or the uncached pipeline) through a
// parallel Map, and the drawn Filter, for the drawn epochs.
func (r *cacheRig[T]) consumer(src any, par int) *flow.Pipeline {
	var p *flow.Pipeline
	switch src := src.(type) {
	case flow.Source[T]:
		p = flow.From(src)
	case *flow.Pipeline:
		p = src
	}
	p = p.Via(operators.Map(func(v T) (T, error) { return v, nil })).Parallel(par)
	if r.c.consFilter {
		p = p.Via(operators.Filter(func(v T) bool { return cacheKeep(v, 3) }))
	}
	return p.Epochs(int64(r.c.epochs))
}

// check runs the consumer on cache: it must give the oracle's stream, with
// the cached pipeline computing rows rows.
func (r *cacheRig[T]) check(t *testing.T, what string, cache flow.Source[T], par int, rows int64) {
	t.Helper()
	r.rows.Store(0)
	got, err := cacheRun[T](t.Context(), r.consumer(cache, par))
	if err != nil {
		t.Fatalf("%s at parallelism %d: %v", what, par, err)
	}
	if d := sameCacheItems(got, r.want); d != "" {
		t.Fatalf("%s at parallelism %d: %s", what, par, d)
	}
	if n := r.rows.Load(); n != rows {
		t.Fatalf("%s at parallelism %d: the cached pipeline computed %d rows, want %d", what, par, n, rows)
	}
}

// refused runs the consumer on cache, which must fail before any item
// with an error naming path and saying why.
func (r *cacheRig[T]) refused(t *testing.T, what string, cache flow.Source[T], path string) {
	t.Helper()
	r.rows.Store(0)
	got, err := cacheRun[T](t.Context(), r.consumer(cache, r.c.par))
	if err == nil || len(got) > 0 || !strings.Contains(err.Error(), "built by another pipeline") || !strings.Contains(err.Error(), path) {
		t.Fatalf("%s: %d items, error %v; want a refusal naming %s", what, len(got), err, path)
	}
	if n := r.rows.Load(); n != 0 {
		t.Fatalf("%s: the cached pipeline computed %d rows, want none", what, n)
	}
}

// reuse: another Cache of the pipeline replays the file with the same key
// and codec, with Rebuild or not, and refuses it, or rebuilds it with
// Rebuild, with another key or codec. A memory cache is the source
// value's: another value builds its own.
func (r *cacheRig[T]) reuse(t *testing.T, cache flow.Source[T], path string) {
	c := r.c
	n := int64(c.n)
	if !c.disk {
		r.check(t, "another memory cache", r.cache(path), c.par, n)
		r.check(t, "the first memory cache again", cache, 1, 0)
		return
	}
	r.check(t, "another Cache of the file", r.cache(path), c.par, 0)
	r.check(t, "another Cache of the file, with Rebuild", r.cache(path, operators.Rebuild()), c.resumePar, 0)
	otherKey := c.key + "-other"
	keyed := func(extra ...operators.CacheOption) flow.Source[T] {
		opts := []operators.CacheOption{operators.OnDisk(path), operators.CacheKey(otherKey)}
		return r.build(r.p, append(opts, extra...)...)
	}
	r.refused(t, "another key", keyed(), path)
	r.refused(t, "another codec", r.other(r.p, operators.OnDisk(path), operators.CacheKey(c.key)), path)
	r.check(t, "another key, with Rebuild", keyed(operators.Rebuild()), c.par, n)
	r.check(t, "another key, rebuilt, replayed", keyed(), 2, 0)
	if !c.rebuild {
		r.refused(t, "the first key after another key's rebuild", r.cache(path), path)
	}
	r.check(t, "the first key, with Rebuild", r.cache(path, operators.Rebuild()), c.par, n)
	r.check(t, "the first key, rebuilt, replayed", r.cache(path), 4, 0)
	cacheDirHolds(t, "after the rebuilds", filepath.Dir(path), filepath.Base(path))
}

// fail makes the first pass of a cache at path fail, or stop, at the drawn
// row: no file may be left under the cache's name, nor a temporary, and
// the next run builds the cache whole.
func (r *cacheRig[T]) fail(t *testing.T, path string) {
	c := r.c
	if c.failure == 0 || c.n == 0 {
		return
	}
	r.stopPartitions(t, path)
	cache := r.cache(path)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var what string
	k := int64(c.failAt)
	switch c.failure {
	case 1:
		if c.generate {
			what = fmt.Sprintf("Generate failing at index %d", k)
			r.genAt.Store(k)
		} else {
			what = fmt.Sprintf("the Map failing at row %d", k)
			h := func(i int64) error {
				if i == k {
					return errCacheFuzzFail
				}
				return nil
			}
			r.hook.Store(&h)
		}
	case 2:
		what = fmt.Sprintf("the context cancelled by the Map at row %d", k)
		h := func(i int64) error {
			if i == k {
				cancel()
			}
			return nil
		}
		r.hook.Store(&h)
	}
	r.rows.Store(0)
	var got []flow.Item[T]
	var err error
	if c.failure == 3 {
		what = fmt.Sprintf("the consumer stopping after %d items", k)
		for it, e := range flow.Items[T](ctx, r.consumer(cache, c.par)) {
			if int64(len(got)) == k {
				break
			}
			if err = e; e != nil {
				break
			}
			got = append(got, it)
		}
	} else {
		got, err = cacheRun[T](ctx, r.consumer(cache, c.par))
	}
	r.hook.Store(nil)
	r.genAt.Store(-1)
	if d := sameCacheItems(got, r.want[:min(len(got), len(r.want))]); d != "" {
		t.Fatalf("%s: not a prefix of the stream: %s", what, d)
	}
	ended := len(got) == len(r.want) // every item was read
	switch c.failure {
	case 1:
		if !errors.Is(err, errCacheFuzzFail) {
			t.Fatalf("%s: %d items, error %v", what, len(got), err)
		}
	case 2:
		if err == nil && !ended {
			t.Fatalf("%s: %d items of %d and no error", what, len(got), len(r.want))
		}
	case 3:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// A Map that fails fails the first pass; a consumer that stops, or a
	// cancelled context, may end the run after the pass ended (the cache
	// reads whole partitions ahead of the consumer, and builds in the
	// first epoch), and then the cache is kept whole.
	kept := false
	if c.disk {
		entries, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		if kept = len(entries) > 0; kept {
			cacheDirHolds(t, what, filepath.Dir(path), filepath.Base(path))
		}
	}
	if c.failure == 1 && kept {
		t.Fatalf("%s: the failed first pass kept its file", what)
	}
	r.rows.Store(0)
	got, err = cacheRun[T](t.Context(), r.consumer(cache, c.resumePar))
	if err != nil {
		t.Fatalf("the run after %s: %v", what, err)
	}
	if d := sameCacheItems(got, r.want); d != "" {
		t.Fatalf("the run after %s: %s", what, d)
	}
	n := r.rows.Load()
	if n != 0 && n != int64(c.n) || c.failure == 1 && n == 0 || kept && n != 0 {
		t.Fatalf("the run after %s (file kept: %v) computed %d rows, want none (a replay) or all %d (a build)", what, kept, n, c.n)
	}
	r.check(t, "the replay after "+what, cache, c.par, 0)
	if c.disk {
		cacheDirHolds(t, "after "+what+" and a build", filepath.Dir(path), filepath.Base(path))
	}
}

// damage cuts the built file at path short, or flips a byte of it: a run
// gives the whole stream (a replay of a byte that does not matter, or a
// rebuild) or a prefix of it and an error naming the file.
func (r *cacheRig[T]) damage(t *testing.T, path string) {
	c := r.c
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := min(int(c.damageAt*float64(len(whole))), len(whole)-1)
	var what string
	damaged := slices.Clone(whole)
	if c.damage == 1 {
		what = fmt.Sprintf("the file cut to %d of %d bytes", at, len(whole))
		damaged = damaged[:at]
	} else {
		what = fmt.Sprintf("byte %d of %d xor %#x", at, len(whole), c.damageXor)
		damaged[at] ^= c.damageXor
	}
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	r.rows.Store(0)
	got, err := cacheRun[T](t.Context(), r.consumer(r.cache(path), c.par))
	rows := r.rows.Load()
	if err == nil {
		if d := sameCacheItems(got, r.want); d != "" {
			t.Fatalf("%s: no error, and %s", what, d)
		}
		if rows != 0 && rows != int64(c.n) {
			t.Fatalf("%s: the cached pipeline computed %d rows, want none or all %d", what, rows, c.n)
		}
		// A rebuild writes the file as it was; a replay leaves it
		// damaged, which only a byte that does not matter allows.
		now, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if rebuilt := slices.Equal(now, whole); !rebuilt && (c.damage == 1 || rows != 0 || !slices.Equal(now, damaged)) {
			t.Fatalf("%s: no error, %d rows computed, and the file is neither rebuilt nor left as it was", what, rows)
		}
	} else {
		if d := sameCacheItems(got, r.want[:min(len(got), len(r.want))]); d != "" {
			t.Fatalf("%s: %v, after items that are not a prefix of the stream: %s", what, err, d)
		}
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("%s: %v, an error that does not name the file", what, err)
		}
	}
	t.Logf("%s: %d items, %d rows computed, %v", what, len(got), rows, err)
	cacheDirHolds(t, "after "+what, filepath.Dir(path), filepath.Base(path))
	if err := os.WriteFile(path, whole, 0o644); err != nil {
		t.Fatal(err)
	}
}

// resume takes a checkpoint after the drawn item of a run of the built
// cache, and of a run of fresh, not yet built, and resumes each at
// another parallelism to exactly the rest.
func (r *cacheRig[T]) resume(t *testing.T, built, fresh flow.Source[T]) {
	c := r.c
	if len(r.want) == 0 {
		return
	}
	k := 1 + min(int(c.resumeAt*float64(len(r.want))), len(r.want)-1)
	for _, s := range []struct {
		name  string
		cache flow.Source[T]
	}{{"built", built}, {"not built", fresh}} {
		ck, err := testutil.CheckpointAfter[T](t.Context(), r.consumer(s.cache, c.par), k)
		if err != nil {
			t.Fatalf("%s cache: checkpoint after item %d: %v", s.name, k, err)
		}
		r.rows.Store(0)
		got, err := cacheRun[T](t.Context(), r.consumer(s.cache, c.resumePar).Resume(ck))
		if err != nil {
			t.Fatalf("%s cache: resumed after item %d of %d at parallelism %d: %v", s.name, k, len(r.want), c.resumePar, err)
		}
		if d := sameCacheItems(got, r.want[k:]); d != "" {
			t.Fatalf("%s cache: resumed after item %d of %d at parallelism %d: %s", s.name, k, len(r.want), c.resumePar, d)
		}
		if n := r.rows.Load(); s.name == "built" && n != 0 {
			t.Fatalf("resumed from the built cache, the cached pipeline computed %d rows", n)
		}
		if len(got) > 0 {
			// The resumed run built the cache whole, if it was not.
			r.check(t, s.name+" cache, after a resumed run", s.cache, c.par, 0)
		}
	}
}

// cacheSink counts the rows pushed to it.
type cacheSink[T any] struct{ rows int }

func (s *cacheSink[T]) Push(_ context.Context, c flow.Chunk[T]) error {
	s.rows += len(c.Values)
	c.Release()
	return nil
}

// stopPartitions reads the first of the partitions of a first pass
// through Cache's Partitions, and stops before the last: the pass keeps
// nothing, and the next run builds the cache whole.
func (r *cacheRig[T]) stopPartitions(t *testing.T, path string) {
	c := r.c
	parts := (c.n + c.part - 1) / c.part
	j := c.failAt * parts / c.n // in [0, parts)
	cache := r.cache(path)
	r.rows.Store(0)
	read := 0
	for part, err := range cache.Partitions(t.Context(), flow.Env{}) {
		if err != nil {
			t.Fatalf("a first pass read through Partitions: %v", err)
		}
		if read == j {
			break
		}
		if err := part.Read(t.Context(), &cacheSink[T]{}); err != nil {
			t.Fatalf("a first pass read through Partitions, partition %d: %v", read, err)
		}
		read++
	}
	what := fmt.Sprintf("a first pass stopped after %d of %d partitions", j, parts)
	if c.disk {
		cacheDirHolds(t, what, filepath.Dir(path))
	}
	r.check(t, "the run after "+what, cache, c.par, int64(c.n))
	if c.disk {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}
