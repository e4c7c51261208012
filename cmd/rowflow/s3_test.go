package main_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// inspect, head, digest and verify read a dataset in a bucket as they
// read it on disk: the same output.
func TestCommandsReadBuckets(t *testing.T) {
	s3 := testutil.StartS3(t)
	data := dataset(t)
	url := s3.Upload(t, data, "data", "events")
	for _, args := range [][]string{
		{"inspect"},
		{"head", "-n", "5", "-json"},
		{"digest"},
		{"digest", "-parallel", "3"},
	} {
		disk := must(t, nil, append(args, data)...)
		bucket := must(t, nil, append(args, url)...)
		if bucket != disk {
			t.Errorf("rowflow %s: from the bucket\n%s\nfrom disk\n%s", strings.Join(args, " "), bucket, disk)
		}
	}
	if out := must(t, nil, "verify", "-parallel", "3", url); !strings.HasPrefix(out, "ok: parallelism 1 and 3 give the same 1000 rows") {
		t.Errorf("verify: %s", out)
	}
	_, errOut, code := rowflow(t, nil, "head", "s3://nosuchbucket/events")
	if code != 1 || !strings.Contains(errOut, `bucket "nosuchbucket" does not exist`) {
		t.Errorf("head of a missing bucket: exit %d, %s", code, errOut)
	}
}

// reshard -out writes to a bucket what it writes to disk, in two ranks;
// commit and head read it there; cleanup removes a data object of a rank
// that its manifest does not list, and only that.
func TestCommandsWriteBuckets(t *testing.T) {
	s3 := testutil.StartS3(t)
	data := dataset(t)
	s3.Upload(t, t.TempDir(), "out", "")
	disk := filepath.Join(t.TempDir(), "out")
	url := "s3://out/shards"
	for _, out := range []string{disk, url} {
		for r := range 2 {
			must(t, nil, "reshard", "-out", out, "-rank", fmt.Sprint(r), "-world", "2", "-rows-per-file", "150", data)
		}
		must(t, nil, "commit", "-world", "2", out)
	}
	want := tree(t, disk)
	if got := tree(t, filepath.Join(s3.Dir, "out", "shards")); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("the bucket holds %q; the disk %q (or their bytes differ)", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	if a, b := must(t, nil, "digest", url), must(t, nil, "digest", disk); a != b {
		t.Errorf("digest of the output: in the bucket %s, on disk %s", a, b)
	}
	if _, errOut, code := rowflow(t, nil, "reshard", "-out", "s3://data/events/out", "s3://data/events"); code != 2 || !strings.Contains(errOut, "is the input") {
		t.Errorf("reshard into its input: exit %d, %s", code, errOut)
	}
	s3.Put(t, "out", "shards/part-00001-00099.parquet", []byte("left by a killed run"))
	if out := must(t, nil, "cleanup", "-n", url); out != "would remove s3://out/shards/part-00001-00099.parquet\n" {
		t.Errorf("cleanup -n: %q", out)
	}
	if out := must(t, nil, "cleanup", url); out != "removed s3://out/shards/part-00001-00099.parquet\n" {
		t.Errorf("cleanup: %q", out)
	}
	if got := tree(t, filepath.Join(s3.Dir, "out", "shards")); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("after cleanup the bucket holds %q", slices.Sorted(maps.Keys(got)))
	}
}

// tree returns the files under dir by slash-separated path, without the
// hidden ones (versitygw's own).
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
