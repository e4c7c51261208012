package text_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// inBucketSameAsOnDisk fails unless the source that src makes over the
// bucket's copy url of the dataset at dir gives, at every parallelism,
// the items (partition numbers, IDs, values) it gives over dir serially.
func inBucketSameAsOnDisk(t *testing.T, what, dir, url string, src func(root string) flow.Source[Line]) {
	t.Helper()
	disk := testutil.Items[Line](t, flow.From(src(dir)))
	if len(disk) == 0 {
		t.Fatalf("%s: no items", what)
	}
	for _, par := range []int{1, 2, 4} {
		got := testutil.Items[Line](t, flow.From(src(url)).Parallel(par))
		if !reflect.DeepEqual(got, disk) {
			sameItems(t, fmt.Sprintf("%s Parallel(%d)", what, par), got, disk)
			t.Fatalf("%s Parallel(%d): the bucket's items differ from the disk's (partition numbers)", what, par)
		}
	}
}

// TestCSVInBucketSameAsOnDisk: byte ranges of CSV files in a bucket,
// split at every size, read as on disk, with Where and Files.
func TestCSVInBucketSameAsOnDisk(t *testing.T) {
	s3 := testutil.StartS3(t)
	dir := t.TempDir()
	lines := lineValues(3000)
	writeCSV(t, filepath.Join(dir, "lang=zz", "a.csv"), lines[:1500])
	writeCSV(t, filepath.Join(dir, "lang=yy", "b.csv"), lines[1500:2500])
	writeCSV(t, filepath.Join(dir, "lang=yy", "c.csv.gz"), lines[2500:])
	writeFile(t, filepath.Join(dir, "lang=yy", "_hidden.csv"), []byte("not,a,row\n"))
	url := s3.Upload(t, dir, "data", "csv")
	for _, size := range []int64{97, 1000, 1 << 20} {
		inBucketSameAsOnDisk(t, fmt.Sprintf("PartitionBytes(%d)", size), dir, url, func(root string) flow.Source[Line] {
			return text.CSV[Line](root, text.PartitionBytes(size))
		})
	}
	inBucketSameAsOnDisk(t, "Where", dir, url, func(root string) flow.Source[Line] {
		return text.CSV[Line](root, text.PartitionBytes(500), sources.Where(sources.Eq("lang", "yy")))
	})
	inBucketSameAsOnDisk(t, "Files", dir, url, func(root string) flow.Source[Line] {
		return text.CSV[Line](root, text.PartitionBytes(500), sources.Files("lang=zz/a.csv", "lang=yy/c.csv.gz"))
	})
}

// TestJSONLInBucketSameAsOnDisk, with Hive columns, compressed files
// among plain ones, a Where filter and a glob.
func TestJSONLInBucketSameAsOnDisk(t *testing.T) {
	s3 := testutil.StartS3(t)
	dir := t.TempDir()
	lines := lineValues(2000)
	names := []string{"lang=de/a.jsonl", "lang=en/b.jsonl.gz", "lang=en/c.ndjson", "lang=fr/d.jsonl.zst", "lang=fr/e.jsonl.s2"}
	for k, name := range names {
		writeJSONL(t, filepath.Join(dir, name), lines[k*400:(k+1)*400])
	}
	writeFile(t, filepath.Join(dir, "_ignored.jsonl"), []byte("not json\n"))
	url := s3.Upload(t, dir, "data", "jsonl/v1")
	inBucketSameAsOnDisk(t, "all", dir, url, func(root string) flow.Source[Line] {
		return text.JSONL[Line](root, text.PartitionBytes(500))
	})
	inBucketSameAsOnDisk(t, "Where", dir, url, func(root string) flow.Source[Line] {
		return text.JSONL[Line](root, text.PartitionBytes(500), sources.Where(sources.In("lang", "en", "fr")))
	})
	for rank := range 2 {
		// Ranks of a world divide byte ranges sized by the whole dataset.
		where := sources.Where(sources.Eq("lang", "de"))
		disk := testutil.Items[Line](t, flow.From(text.JSONL[Line](dir, text.PartitionBytes(500), where)).WithRank(rank, 2))
		before := objstore.Listed()
		got := testutil.Items[Line](t, flow.From(text.JSONL[Line](url, text.PartitionBytes(500), where)).WithRank(rank, 2).Parallel(2))
		if len(disk) == 0 || !reflect.DeepEqual(got, disk) {
			t.Fatalf("Where, rank %d of 2: %d items from the bucket, %d from disk, or they differ", rank, len(got), len(disk))
		}
		if n := objstore.Listed() - before; n != 6 {
			t.Fatalf("Where, rank %d of 2: %d objects listed, want all 6", rank, n)
		}
	}
	before := objstore.Listed()
	testutil.Items[Line](t, flow.From(text.JSONL[Line](url, sources.Where(sources.Eq("lang", "de")))))
	if n := objstore.Listed() - before; n != 2 {
		t.Fatalf("Where lang=de: %d objects listed, want 2 (lang=de/a.jsonl and _ignored.jsonl; the other directories pruned)", n)
	}
	inBucketSameAsOnDisk(t, "shuffled", dir, url, func(root string) flow.Source[Line] {
		return text.JSONL[Line](root, text.PartitionBytes(300), sources.ShuffleWindow(4))
	})
	glob := func(root string) string {
		if strings.HasPrefix(root, "s3://") {
			return root + "/lang=*/*.jsonl*"
		}
		return filepath.Join(root, "lang=*", "*.jsonl*")
	}
	disk := testutil.Items[Line](t, flow.From(text.JSONL[Line](glob(dir))))
	got := testutil.Items[Line](t, flow.From(text.JSONL[Line](glob(url))).Parallel(3))
	if len(disk) != 1600 || !reflect.DeepEqual(got, disk) {
		t.Fatalf("glob: %d items from the bucket, %d from disk, want 1600 (all but c.ndjson) and equal", len(got), len(disk))
	}
}

// TestCSVInBucketObjectChanged: a CSV object replaced between planning
// and reading fails the run, naming it.
func TestCSVInBucketObjectChanged(t *testing.T) {
	s3 := testutil.StartS3(t)
	dir := t.TempDir()
	writeCSV(t, filepath.Join(dir, "lang=zz", "a.csv"), lineValues(3000))
	url := s3.Upload(t, dir, "data", "")
	data, err := os.ReadFile(filepath.Join(dir, "lang=zz", "a.csv"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var runErr error
	for _, err := range flow.Items[Line](context.Background(), flow.From(text.CSV[Line](url, text.PartitionBytes(1000)))) {
		if err != nil {
			runErr = err
			break
		}
		if n == 0 {
			s3.Put(t, "data", "lang=zz/a.csv", append(data, data[len(data)/2:]...))
		}
		n++
	}
	if runErr == nil || !strings.Contains(runErr.Error(), "changed during the run") || !strings.Contains(runErr.Error(), "a.csv") {
		t.Fatalf("after %d rows: error %v, want one saying a.csv changed during the run", n, runErr)
	}
	t.Logf("%d rows, then: %v", n, runErr)
}
