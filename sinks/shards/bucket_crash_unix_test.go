//go:build unix

package shards_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// bucketWorld is the number of ranks of the bucket crash test's job.
const bucketWorld = 3

// bucketJob runs rank rank of a job of bucketWorld ranks into dir (a
// path or an s3:// URL): 6000 rows, each rank keeping the rows whose ID
// it owns, two writers, files of 400 rows with the row-ID column.
func bucketJob(dir string, rank int) error {
	return flow.From(everyRank(sources.Slice(pqRows(6000), sources.PartitionItems(400), sources.ChunkSize(100)))).
		Via(operators.Map(func(r pqRow) (pqRow, error) { return r, nil })).Parallel(2).
		Via(operators.Filter(func(r pqRow) bool { return int(r.ID%bucketWorld) == rank })).
		WithRank(rank, bucketWorld).
		To(shards.Parquet[pqRow](dir, shards.Writers(2), shards.RowsPerFile(400), shards.RowGroupRows(100), shards.RowIDColumn("rid"))).
		Run(context.Background())
}

// TestKilledRankInBucket runs a job of three ranks writing to a bucket,
// rank 1 in a child process killed with SIGKILL in the middle of an
// upload (half of a file's bytes sent) or just after one; after the kill
// the rank has no manifest and every object of it is one of an
// uninterrupted run's files, whole. Rank 1 run again and the job
// committed, the bucket holds exactly what the same job writes on disk,
// dataset manifest included, and the killed run's local staging directory
// is gone.
func TestKilledRankInBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	s3 := testutil.StartS3(t)
	makeBucket(t, s3, "out")
	disk := t.TempDir()
	for r := range bucketWorld {
		if err := bucketJob(disk, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := shards.Commit(disk, bucketWorld); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, disk)
	m, err := shards.ReadManifest(disk, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) < 4 {
		t.Fatalf("rank 1 wrote %d files", len(m.Files))
	}
	for i, stop := range []string{"uploading " + m.Files[2].Path, "uploaded " + m.Files[1].Path, "stale removed"} {
		t.Run(fmt.Sprintf("%d %s", i, stop), func(t *testing.T) {
			prefix := fmt.Sprintf("job%d", i)
			url := "s3://out/" + prefix
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp) // the runs' staging directories, the child's too
			for _, r := range []int{0, 2} {
				if err := bucketJob(url, r); err != nil {
					t.Fatal(err)
				}
			}
			if !runBucketChild(t, url, stop) {
				t.Fatalf("the child passed %q without stopping", stop)
			}
			got := bucketTree(t, s3, "out", prefix)
			if _, ok := got[shards.ManifestName(1)]; ok {
				t.Fatal("after the kill, rank 1 has a manifest")
			}
			for rel, b := range got {
				if w, ok := want[rel]; !ok || !bytes.Equal(b, w) {
					t.Fatalf("after the kill, %s is not a whole file of the uninterrupted run", rel)
				}
			}
			left := 0
			for rel := range got {
				if strings.HasPrefix(rel, "part-00001-") {
					left++
				}
			}
			if i > 0 && left == 0 {
				t.Fatal("the killed run left no object of rank 1: the test kills it too early")
			}
			if _, err := shards.Commit(url, bucketWorld); err == nil {
				t.Fatal("Commit of the job with rank 1 killed succeeded")
			}
			if stages, _ := filepath.Glob(filepath.Join(tmp, "rowflow-upload-*")); len(stages) != 1 {
				t.Fatalf("after the kill, staging directories %q; want the killed run's", stages)
			}
			// An object of the rank that no manifest lists and the rerun
			// does not write (a run with other options left it) is removed.
			s3.Put(t, "out", prefix+"/part-00001-00077.parquet", []byte("left over"))
			if err := bucketJob(url, 1); err != nil {
				t.Fatalf("the rerun failed: %v", err)
			}
			if stages, _ := filepath.Glob(filepath.Join(tmp, "rowflow-upload-*")); len(stages) != 0 {
				t.Fatalf("after the rerun, staging directories %q are left", stages)
			}
			if _, err := shards.Commit(url, bucketWorld); err != nil {
				t.Fatal(err)
			}
			if got := bucketTree(t, s3, "out", prefix); !maps.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("after the rerun and the commit the bucket holds %q; the disk %q (or their bytes differ)",
					slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
		})
	}
}

// runBucketChild runs TestHelperBucketRank on url in a child process and
// kills it when it reports that it reached the step stop. It reports
// whether the child was killed.
func runBucketChild(t *testing.T, url, stop string) bool {
	t.Helper()
	return killChildAtStop(t, "TestHelperBucketRank", url+"|"+stop)
}

// killChildAtStop runs the test helper test with arg in a child process
// and kills it (SIGKILL) when it reports, by stopAtStep, that it reached
// its step. It reports whether the child was killed; a child that fails
// without reaching its step fails the test.
func killChildAtStop(t *testing.T, test, arg string) bool {
	t.Helper()
	cmd, sc, out := testutil.StartChild(t, test, arg)
	killed := false
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "stop ") {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err := cmd.Wait()
	if !killed && err != nil {
		t.Fatalf("child %s (%s): %v\n%s", test, arg, err, out.Bytes())
	}
	return killed
}

// stopAtStep makes the run of a child stop at the step for which stop
// returns true, say so to its parent (killChildAtStop) and wait there to
// be killed. It returns a function that restores the steps.
func stopAtStep(t *testing.T, stop func(step string) bool) (restore func()) {
	reports := os.NewFile(3, "reports")
	var mu sync.Mutex
	return shards.SetFSStep(func(step string) {
		mu.Lock()
		defer mu.Unlock()
		if stop(step) {
			fmt.Fprintln(reports, "stop", step)
			io.Copy(io.Discard, os.Stdin) // until the parent kills the process
			t.Errorf("not killed at %q", step)
		}
	})
}

// TestHelperBucketRank is the child of TestKilledRankInBucket: it runs
// rank 1 of the job and, at the step its parent names, says so and waits
// to be killed.
func TestHelperBucketRank(t *testing.T) {
	url, stop, _ := strings.Cut(testutil.ChildArg(t), "|")
	defer stopAtStep(t, func(step string) bool { return step == stop })()
	if err := bucketJob(url, 1); err != nil {
		t.Fatal(err)
	}
}
