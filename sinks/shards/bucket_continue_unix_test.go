//go:build unix

package shards_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// TestContinueInBucket: a run with Continue writing to a bucket, killed
// (SIGKILL, in a child process) after it recorded its k-th file, is run
// again the same way: it keeps the k files it uploaded, uploads only the
// others, and ends with the objects an uninterrupted run writes on disk,
// byte for byte, and no progress record.
func TestContinueInBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	t.Setenv("TMPDIR", t.TempDir())
	disk := t.TempDir()
	if err := contJob(disk); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, disk)
	const files = 7 // 3000 rows in files of 450
	for _, k := range []int{1, 3, 6} {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			prefix := fmt.Sprintf("cont%d", k)
			url := "s3://out/" + prefix
			if !killChildAtStop(t, "TestHelperContinueInBucket", url+"|"+strconv.Itoa(k)) {
				t.Fatalf("the child was not stopped after %d records", k)
			}
			got := bucketTree(t, s3, "out", prefix)
			if _, ok := got[shards.ManifestName(0)]; ok {
				t.Fatal("after the kill, the rank has a manifest")
			}
			if len(got) < k {
				t.Fatalf("after the kill at record %d, %d objects", k, len(got))
			}
			statProgress(t, s3, prefix, true)

			recorded := recordUploads()
			err := contJob(url)
			uploaded := recorded()
			if err != nil {
				t.Fatalf("the continued run: %v", err)
			}
			if len(uploaded) != files-k {
				t.Errorf("the continued run uploaded %q, want the %d files after the %d kept", uploaded, files-k, k)
			}
			if got := bucketTree(t, s3, "out", prefix); !maps.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("after the continued run the bucket holds %q; the disk %q (or their bytes differ)",
					slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			statProgress(t, s3, prefix, false)
		})
	}
}

// statProgress checks that the progress record of rank 0 under prefix is
// there, or not.
func statProgress(t *testing.T, s3 *testutil.S3, prefix string, there bool) {
	t.Helper()
	_, err := s3.Client.StatObject(context.Background(), "out", prefix+"/.progress-00000.json", minio.StatObjectOptions{})
	if there && err != nil {
		t.Fatalf("the progress record is not there: %v", err)
	}
	if !there && minio.ToErrorResponse(err).StatusCode != 404 {
		t.Fatalf("the progress record is still there after the commit (stat: %v)", err)
	}
}

// TestContinueInBucketFailed: a run with Continue into a bucket that
// fails keeps the files its last progress record lists, and the record,
// and removes its other uploads; run again, it uploads only the rest and
// ends with what an uninterrupted run writes on disk.
func TestContinueInBucketFailed(t *testing.T) {
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	t.Setenv("TMPDIR", t.TempDir())
	var fail atomic.Bool
	job := func(dir string) error {
		p := pqPipeline(pqRows(3000), 2, sources.PartitionItems(400), sources.ChunkSize(100)).
			Via(operators.Map(func(r pqRow) (pqRow, error) {
				if fail.Load() && r.ID == pqRows(3000)[2000].ID {
					return r, errors.New("row 2000 is bad")
				}
				return r, nil
			}))
		return p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(450), shards.Continue())).Run(context.Background())
	}
	disk := t.TempDir()
	if err := job(disk); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, disk)
	fail.Store(true)
	if err := job("s3://out/failed"); err == nil || !strings.Contains(err.Error(), "row 2000 is bad") {
		t.Fatalf("the failing run: %v", err)
	}
	got := bucketTree(t, s3, "out", "failed")
	kept := slices.Sorted(maps.Keys(got))
	if len(kept) != 4 || kept[3] != "part-00000-00003.parquet" { // 2000 rows: 4 files of 450 complete
		t.Fatalf("after the failed run the bucket holds %q, want the 4 complete files", kept)
	}
	statProgress(t, s3, "failed", true)
	fail.Store(false)
	recorded := recordUploads()
	err := job("s3://out/failed")
	uploaded := recorded()
	if err != nil {
		t.Fatal(err)
	}
	if len(uploaded) != 3 {
		t.Errorf("the continued run uploaded %q, want the 3 files after the 4 kept", uploaded)
	}
	if got := bucketTree(t, s3, "out", "failed"); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("after the continued run the bucket holds %q; the disk %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	statProgress(t, s3, "failed", false)
}

// TestHelperContinueInBucket is the child of TestContinueInBucket: it
// runs contJob into the URL its parent names and, once it has put its
// k-th progress record, says so and waits to be killed.
func TestHelperContinueInBucket(t *testing.T) {
	url, ks, _ := strings.Cut(testutil.ChildArg(t), "|")
	k, _ := strconv.Atoi(ks)
	seen := 0
	defer stopAtStep(t, func(step string) bool {
		if step == "progress put" {
			seen++
		}
		return step == "progress put" && seen == k
	})()
	if err := contJob(url); err != nil {
		t.Fatal(err)
	}
}

// recordUploads records the files that runs upload, until the returned
// function is called, which returns them.
func recordUploads() (stop func() []string) {
	var mu sync.Mutex
	var uploaded []string
	restore := shards.SetFSStep(func(step string) {
		if rel, ok := strings.CutPrefix(step, "uploaded "); ok {
			mu.Lock()
			uploaded = append(uploaded, rel)
			mu.Unlock()
		}
	})
	return func() []string {
		restore()
		mu.Lock()
		defer mu.Unlock()
		return uploaded
	}
}
