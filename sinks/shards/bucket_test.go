package shards_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// bucketTree returns the files of the objects under prefix of bucket, as
// the gateway stores them in its directory (versitygw's posix backend
// keeps an object as a file at its key), skipping the gateway's own
// hidden files.
func bucketTree(t *testing.T, s3 *testutil.S3, bucket, prefix string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(s3.Dir, bucket, prefix)
	got := map[string][]byte{}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return got
	}
	for rel, b := range readTree(t, dir) {
		if strings.HasPrefix(filepath.Base(rel), ".") {
			continue
		}
		got[rel] = b
	}
	return got
}

// makeBucket creates bucket on the test's server.
func makeBucket(t *testing.T, s3 *testutil.S3, bucket string) {
	t.Helper()
	s3.Upload(t, t.TempDir(), bucket, "")
}

// TestShardsInBucketAsOnDisk: each shard sink writing to an s3:// URL
// puts objects byte-identical to the files it writes on disk, and the
// same manifests, with several writers and partition directories; the
// local staging directory is gone afterwards.
func TestShardsInBucketAsOnDisk(t *testing.T) {
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	stage := t.TempDir()
	t.Setenv("TMPDIR", stage)
	rows := pqRows(3000)
	recs := make([]sources.Record, len(rows))
	for i, r := range rows {
		recs[i] = sources.Record{Names: []string{"id", "text"}, Values: []any{r.ID, r.Text}}
	}
	for _, tc := range []struct {
		name string
		run  func(dir string) error
	}{
		{"parquet", func(dir string) error {
			return pqPipeline(rows, 3, sources.PartitionItems(250)).
				To(shards.Parquet[pqRow](dir, shards.Writers(2), shards.RowsPerFile(700), shards.RowIDColumn("rid"))).Run(context.Background())
		}},
		{"partitioned", func(dir string) error {
			type kv struct {
				Key string `parquet:"key"`
				V   int64  `parquet:"v"`
			}
			vals := make([]kv, 2000)
			for i := range vals {
				vals[i] = kv{Key: []string{"a", "b", "c"}[i%3], V: int64(i)}
			}
			return flow.From(sources.Slice(vals, sources.PartitionItems(100))).
				To(shards.Parquet[kv](dir, shards.PartitionBy("key"), shards.Writers(2), shards.RowsPerFile(300))).Run(context.Background())
		}},
		{"records", func(dir string) error {
			return flow.From(sources.Slice(recs, sources.PartitionItems(300))).
				To(shards.Parquet[sources.Record](dir, shards.Schema(pq.NewSchema("r", pq.Group{"id": pq.Int(64), "text": pq.String()})), shards.RowsPerFile(1000))).Run(context.Background())
		}},
		{"jsonl", func(dir string) error {
			return flow.From(sources.Slice(notes(3000), sources.PartitionItems(250))).
				Via(operators.Map(func(n note) (note, error) { return n, nil })).Parallel(2).
				To(shards.JSONL[note](dir, shards.Writers(2), shards.RowsPerFile(400))).Run(context.Background())
		}},
		{"csv", func(dir string) error {
			return flow.From(sources.Slice(notes(3000), sources.PartitionItems(250))).
				To(shards.CSV[note](dir, shards.RowsPerFile(1100))).Run(context.Background())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disk := filepath.Join(t.TempDir(), "out")
			if err := tc.run(disk); err != nil {
				t.Fatal(err)
			}
			if err := tc.run("s3://out/" + tc.name); err != nil {
				t.Fatalf("writing to the bucket: %v", err)
			}
			want, got := readTree(t, disk), bucketTree(t, s3, "out", tc.name)
			if len(want) < 3 {
				t.Fatalf("the job wrote %d files on disk", len(want))
			}
			if !maps.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("the bucket holds %q; the disk %q (or their bytes differ)", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			// Commit, VerifyManifest and ReadManifest read the bucket as
			// they read the directory.
			if _, err := shards.Commit(disk, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := shards.Commit("s3://out/"+tc.name, 1); err != nil {
				t.Fatalf("Commit in the bucket: %v", err)
			}
			if got, want := bucketTree(t, s3, "out", tc.name)[shards.DatasetManifestName], readTree(t, disk)[shards.DatasetManifestName]; !bytes.Equal(got, want) {
				t.Fatalf("the dataset manifest in the bucket:\n%s\nwant\n%s", got, want)
			}
			want = readTree(t, disk)
			if _, err := shards.VerifyManifest("s3://out/"+tc.name, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := shards.ReadDatasetManifest("s3://out/" + tc.name); err != nil {
				t.Fatal(err)
			}
			// A rerun of the committed job changes nothing.
			if err := tc.run("s3://out/" + tc.name); err != nil {
				t.Fatalf("rerun: %v", err)
			}
			if again := bucketTree(t, s3, "out", tc.name); !maps.EqualFunc(again, want, bytes.Equal) {
				t.Fatalf("after a rerun the bucket holds %q", slices.Sorted(maps.Keys(again)))
			}
		})
	}
	if left, _ := os.ReadDir(stage); len(left) != 0 {
		t.Errorf("the staging directory holds %v after the runs; want nothing", left)
	}
}

// TestCommitInBucketRefusesStray: Commit refuses a data object that no
// manifest lists, naming it, as it refuses a stray file; a missing rank's
// manifest is named by its URL.
func TestCommitInBucketRefusesStray(t *testing.T) {
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	dir := "s3://out/ds"
	if err := pqPipeline(pqRows(500), 1).To(shards.Parquet[pqRow](dir)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	s3.Put(t, "out", "ds/extra.parquet", []byte("not parquet"))
	_, err := shards.Commit(dir, 1)
	if err == nil || !strings.Contains(err.Error(), "extra.parquet") {
		t.Fatalf("Commit with a stray object: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s3.Dir, "out", "ds", shards.DatasetManifestName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused Commit wrote the dataset manifest: %v", err)
	}
	_, err = shards.Commit(dir, 2)
	if err == nil || !strings.Contains(err.Error(), "rank 1") {
		t.Fatalf("Commit of a world of 2 with one rank: %v", err)
	}
	_, err = shards.ReadManifest(dir, 1)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "s3://out/ds") {
		t.Fatalf("ReadManifest of a missing rank: %v", err)
	}
}

// TestFailedRunInBucketRemovesUploads: a run that fails after some of
// its files are uploaded leaves no manifest and no object; a cancelled
// one too.
func TestFailedRunInBucketRemovesUploads(t *testing.T) {
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	uploaded := 0
	defer shards.SetFSStep(func(step string) {
		if strings.HasPrefix(step, "uploaded ") {
			uploaded++
		}
	})()
	boom := errors.New("boom")
	err := flow.From(sources.Slice(pqRows(3000), sources.PartitionItems(100))).
		Via(operators.Map(func(r pqRow) (pqRow, error) {
			if r.ID == 2500 {
				return r, boom
			}
			return r, nil
		})).
		To(shards.Parquet[pqRow]("s3://out/failed", shards.RowsPerFile(500))).Run(context.Background())
	if !errors.Is(err, boom) {
		t.Fatalf("run: %v, want boom", err)
	}
	if uploaded < 3 {
		t.Fatalf("the run uploaded %d files before it failed; the test wants some", uploaded)
	}
	if got := bucketTree(t, s3, "out", "failed"); len(got) != 0 {
		t.Fatalf("after the failed run the bucket holds %q", slices.Sorted(maps.Keys(got)))
	}

	ctx, cancel := context.WithCancel(context.Background())
	err = flow.From(sources.Slice(pqRows(3000), sources.PartitionItems(100))).
		Via(operators.Map(func(r pqRow) (pqRow, error) {
			if r.ID == 2500 {
				cancel()
			}
			return r, nil
		})).
		To(shards.Parquet[pqRow]("s3://out/cancelled", shards.RowsPerFile(500))).Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if got := bucketTree(t, s3, "out", "cancelled"); len(got) != 0 {
		t.Fatalf("after the cancelled run the bucket holds %q", slices.Sorted(maps.Keys(got)))
	}
}

// TestShardsInBucketErrors: a missing bucket and wrong credentials are
// clear errors, before any row is written.
func TestShardsInBucketErrors(t *testing.T) {
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	run := func(dir string, opts ...shards.ParquetOption) error {
		return pqPipeline(pqRows(100), 1).To(shards.Parquet[pqRow](dir, opts...)).Run(context.Background())
	}
	err := run("s3://nobucket/ds")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), `bucket "nobucket" does not exist`) {
		t.Fatalf("missing bucket: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	err = run("s3://out/ds")
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Fatalf("wrong credentials: %v", err)
	}
	if got := bucketTree(t, s3, "out", "ds"); len(got) != 0 {
		t.Fatalf("the failed runs left %q", slices.Sorted(maps.Keys(got)))
	}
}
