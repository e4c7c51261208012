//go:build unix

package shards_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// bigShardJob writes 19,000 rows of 1,100 bytes that do not compress into
// dir in files of 18,000 rows: a first file of about 20 MB, more than
// minio-go's 16 MiB part size, so uploaded in parts, and a small second.
func bigShardJob(dir string) error {
	rows := make([]pqRow, 19000)
	x := uint64(0x2545f4914f6cdd1d)
	buf := make([]byte, 1100)
	for i := range rows {
		for j := range buf {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			buf[j] = byte(x)
		}
		rows[i] = pqRow{ID: int64(i), Text: string(buf)}
	}
	return pqPipeline(rows, 1, sources.PartitionItems(1000), sources.ChunkSize(250)).
		To(shards.Parquet[pqRow](dir, shards.RowsPerFile(18000), shards.Compression("snappy"))).Run(context.Background())
}

// TestKilledMultipartUpload: a sink's run into a bucket, killed (SIGKILL,
// in a child process) in the middle of the multipart upload of a file
// larger than a part, leaves no object under the file's key (the upload
// was never completed) and no manifest; run again and committed, the
// bucket holds what the same job writes on disk, and the commit has
// aborted the killed run's incomplete upload.
func TestKilledMultipartUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	t.Setenv("TMPDIR", t.TempDir())
	disk := t.TempDir()
	if err := bigShardJob(disk); err != nil {
		t.Fatal(err)
	}
	if _, err := shards.Commit(disk, 1); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, disk)
	first := "part-00000-00000.parquet"
	if len(want[first]) <= 16<<20 {
		t.Fatalf("the first file has %d bytes, not more than a 16 MiB part", len(want[first]))
	}
	const url = "s3://out/big"
	if !killChildAtStop(t, "TestHelperMultipartUpload", url) {
		t.Fatal("the child was not stopped mid-upload")
	}
	if got := bucketTree(t, s3, "out", "big"); len(got) != 0 {
		t.Fatalf("after the kill mid-upload the bucket holds %q", slices.Sorted(maps.Keys(got)))
	}
	incomplete := 0
	for u := range s3.Client.ListIncompleteUploads(context.Background(), "out", "big/", true) {
		if u.Err != nil {
			t.Fatal(u.Err)
		}
		if u.Key == "big/"+first {
			incomplete++
		}
	}
	if incomplete == 0 {
		t.Fatal("no incomplete multipart upload of the first file: the kill was not in the middle of one")
	}
	if _, err := shards.Commit(url, 1); err == nil {
		t.Fatal("Commit of the killed job succeeded")
	}
	if err := bigShardJob(url); err != nil {
		t.Fatalf("the rerun: %v", err)
	}
	if _, err := shards.Commit(url, 1); err != nil {
		t.Fatal(err)
	}
	if got := bucketTree(t, s3, "out", "big"); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("after the rerun and the commit the bucket holds %q; the disk %q (or their bytes differ)",
			slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	// The commit aborted the killed run's upload: its parts take no
	// room on the server.
	for u := range s3.Client.ListIncompleteUploads(context.Background(), "out", "big/", true) {
		if u.Err != nil {
			t.Fatal(u.Err)
		}
		t.Errorf("after the commit, an incomplete upload of %s is left", u.Key)
	}
}

// TestHelperMultipartUpload is the child of TestKilledMultipartUpload: it
// runs bigShardJob into the URL its parent names and, once half of the
// first file's bytes have been read for its upload, says so and waits to
// be killed.
func TestHelperMultipartUpload(t *testing.T) {
	defer stopAtStep(t, func(step string) bool { return step == "uploading part-00000-00000.parquet" })()
	if err := bigShardJob(testutil.ChildArg(t)); err != nil {
		t.Fatal(err)
	}
}
