package operators_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
)

// TestCacheInBucket: Cache(OnDisk(url)) with an s3:// URL builds the same
// cache as on disk, byte for byte, uploaded under its key only once the
// first pass has ended, and replays the same items and IDs as the local
// cache, at any parallelism, reading it back with ranged reads.
func TestCacheInBucket(t *testing.T) {
	s3 := testutil.StartS3(t)
	t.Setenv("TMPDIR", t.TempDir()) // where the bucket cache stages its file
	if err := s3.Client.MakeBucket(t.Context(), "caches", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	inner := flow.From(source(5000, 700, 256)).Parallel(3).
		Via(operators.Map(func(v int64) (record, error) {
			runs.Add(1)
			return record{N: v, Text: strings.Repeat("z", int(v%9))}, nil
		})).Parallel(3)
	want := collect[record](t, inner)

	local := filepath.Join(t.TempDir(), "c.rfcache")
	onDisk := operators.Cache[record](inner, operators.OnDisk(local))
	const url = "s3://caches/run/c.rfcache"
	inBucket := operators.Cache[record](inner, operators.OnDisk(url))
	runs.Store(0)
	for _, n := range []int{1, 4} {
		for _, c := range []flow.Source[record]{onDisk, inBucket} {
			if got := collect[record](t, flow.From(c).Parallel(n)); !slices.Equal(got, want) {
				t.Fatalf("parallelism %d, %s: %d items, want %d, or other items", n, c.Info().Settings, len(got), len(want))
			}
		}
	}
	if got := runs.Load(); got != 2*int64(len(want)) {
		t.Errorf("the cached pipeline computed %d rows, want %d (one pass per cache)", got, 2*len(want))
	}
	disk, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	if obj := getObject(t, s3, "caches", "run/c.rfcache"); !bytes.Equal(obj, disk) {
		t.Fatalf("the cache object (%d bytes) differs from the cache file (%d bytes)", len(obj), len(disk))
	}
	if entries, _ := os.ReadDir(os.TempDir()); len(entries) != 0 {
		t.Errorf("the staging directory holds %v after the pass", entries)
	}
	// A replay asks for each record's head while planning, then its body,
	// in reads of at least 8 KiB: for this small cache (records of about
	// 4 KB) up to 3 times its bytes.
	before := objstore.Requested()
	if got := collect[record](t, flow.From(inBucket)); !slices.Equal(got, want) {
		t.Fatal("the replay differs")
	}
	asked := objstore.Requested() - before
	t.Logf("a replay of the %d-byte cache object asked for %d bytes (%.2fx)", len(disk), asked, float64(asked)/float64(len(disk)))
	if asked > 3*int64(len(disk)) {
		t.Errorf("a replay asked for %d bytes, more than 3 times the object's %d", asked, len(disk))
	}
	// Records of 1024 rows of 200 bytes that do not compress: a replay
	// asks for at most 1.1 times the object's bytes.
	x := uint64(88172645463325252)
	big := flow.From(source(20000, 2000, 500)).Via(operators.Map(func(v int64) (record, error) {
		b := make([]byte, 200)
		for i := range b {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			b[i] = 'a' + byte(x%26)
		}
		return record{N: v, Text: string(b)}, nil
	}))
	bigCache := operators.Cache[record](big, operators.OnDisk("s3://caches/run/big.rfcache"))
	wantBig := collect[record](t, flow.From(bigCache))
	size := int64(len(getObject(t, s3, "caches", "run/big.rfcache")))
	before = objstore.Requested()
	if got := collect[record](t, flow.From(bigCache)); !slices.Equal(got, wantBig) {
		t.Fatal("the replay of the larger cache differs")
	}
	asked = objstore.Requested() - before
	t.Logf("a replay of the %d-byte cache object asked for %d bytes (%.3fx)", size, asked, float64(asked)/float64(size))
	if float64(asked) > 1.1*float64(size) {
		t.Errorf("a replay asked for %d bytes, more than 1.1 times the object's %d", asked, size)
	}

	// Another pipeline's cache object is refused, or rebuilt when asked.
	other := flow.From(source(4000, 700, 256)).Via(operators.Map(func(v int64) (record, error) { return record{N: v}, nil }))
	var n int64
	err = flow.From(operators.Cache[record](other, operators.OnDisk(url))).To(sinks.Count[record](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "built by another pipeline") || !strings.Contains(err.Error(), url) {
		t.Fatalf("another pipeline's cache object: %d rows, error %v", n, err)
	}
	if got := collect[record](t, flow.From(operators.Cache[record](other, operators.OnDisk(url), operators.Rebuild()))); len(got) != 4000 || got[7].Value.N != 7 {
		t.Fatalf("rebuilt cache: %d items", len(got))
	}
}

// TestCacheInBucketStoppedEarly: a first pass that stops early, or fails,
// uploads nothing and leaves no staged file; the next run builds the cache
// whole. An object replaced between planning and reading fails the read.
func TestCacheInBucketStoppedEarly(t *testing.T) {
	s3 := testutil.StartS3(t)
	t.Setenv("TMPDIR", t.TempDir())
	if err := s3.Client.MakeBucket(t.Context(), "caches", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	const url = "s3://caches/c.rfcache"
	cache := operators.Cache[int64](flow.From(source(1000, 50, 16)), operators.OnDisk(url))
	if got := collect[int64](t, flow.From(cache).Via(operators.Take[int64](120))); len(got) != 120 {
		t.Fatalf("%d items", len(got))
	}
	noObject(t, s3, "caches", "c.rfcache", "a stopped first pass")
	failing := operators.Cache[int64](flow.From(source(1000, 50, 16)).Via(operators.Map(func(v int64) (int64, error) {
		if v == 600 {
			return 0, errors.New("row 600 is bad")
		}
		return v, nil
	})), operators.OnDisk("s3://caches/failing.rfcache"))
	var n int64
	if err := flow.From(failing).To(sinks.Count[int64](&n)).Run(t.Context()); err == nil || !strings.Contains(err.Error(), "row 600") {
		t.Fatalf("a failing first pass: %v", err)
	}
	noObject(t, s3, "caches", "failing.rfcache", "a failed first pass")
	if entries, _ := os.ReadDir(os.TempDir()); len(entries) != 0 {
		t.Errorf("the staging directory holds %v after the stopped passes", entries)
	}
	want := collect[int64](t, flow.From(source(1000, 50, 16)))
	for _, pass := range []string{"build", "replay"} {
		if got := collect[int64](t, flow.From(cache)); !slices.Equal(got, want) {
			t.Fatalf("%s: %d items, want %d", pass, len(got), len(want))
		}
	}

	// Replaced between planning and reading: the read fails.
	var parts []flow.Partition[int64]
	for part, err := range cache.Partitions(t.Context(), flow.Env{}) {
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
	}
	// (Another version: the same bytes would have the same ETag.)
	obj := getObject(t, s3, "caches", "c.rfcache")
	s3.Put(t, "caches", "c.rfcache", append(obj, 0))
	err := parts[1].Read(t.Context(), &values{})
	if err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("reading after the object was replaced: %v", err)
	}
}

// TestCacheInBucketMissingBucket: a cache in a bucket that does not exist
// fails before the pipeline computes a row, naming the bucket.
func TestCacheInBucketMissingBucket(t *testing.T) {
	testutil.StartS3(t)
	t.Setenv("TMPDIR", t.TempDir())
	var runs atomic.Int64
	p := flow.From(source(1000, 50, 16)).Via(operators.Map(func(v int64) (int64, error) { runs.Add(1); return v, nil }))
	var n int64
	err := flow.From(operators.Cache[int64](p, operators.OnDisk("s3://nobucket/c.rfcache"))).To(sinks.Count[int64](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), `"nobucket"`) {
		t.Fatalf("a cache in a missing bucket: %v", err)
	}
	if runs.Load() != 0 {
		t.Errorf("the pipeline computed %d rows before the missing bucket was noticed", runs.Load())
	}
}

func getObject(t *testing.T, s3 *testutil.S3, bucket, key string) []byte {
	t.Helper()
	o, err := s3.Client.GetObject(context.Background(), bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if err != nil {
		t.Fatalf("reading s3://%s/%s: %v", bucket, key, err)
	}
	return b
}

func noObject(t *testing.T, s3 *testutil.S3, bucket, key, after string) {
	t.Helper()
	_, err := s3.Client.StatObject(context.Background(), bucket, key, minio.StatObjectOptions{})
	if minio.ToErrorResponse(err).StatusCode != 404 {
		t.Fatalf("after %s, s3://%s/%s: stat error %v, want none there", after, bucket, key, err)
	}
}
