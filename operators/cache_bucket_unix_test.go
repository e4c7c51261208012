//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package operators_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
)

// TestKilledCacheBuildInBucket: a cache build into a bucket killed with
// SIGKILL in the middle of its pass leaves no object under the cache's
// key (nothing a later run could take for a complete cache), only its
// staged file in $TMPDIR; the next run removes that file, builds the
// cache and uploads it, and the run after replays it.
func TestKilledCacheBuildInBucket(t *testing.T) {
	s3 := testutil.StartS3(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if err := s3.Client.MakeBucket(t.Context(), "caches", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	const url = "s3://caches/killed/c.rfcache"
	cmd, sc, out := testutil.StartChild(t, "TestHelperCacheBuild", url)
	if !sc.Scan() || sc.Text() != "building" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not report its build: %q\n%s", sc.Text(), out.Bytes())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	noObject(t, s3, "caches", "killed/c.rfcache", "a killed build")
	staged := func() []string {
		m, err := filepath.Glob(filepath.Join(tmp, ".rowflow-cache-*.tmp-*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if got := staged(); len(got) != 1 {
		t.Fatalf("after the kill, staged files %v, want the killed build's", got)
	}
	n := 0
	for range collect[int64](t, flow.From(tempCache(url, func(int64) {}))) {
		n++
	}
	if got := staged(); n != 2000 || len(got) != 0 {
		t.Fatalf("the next run: %d items, staged files %v", n, got)
	}
	if obj := getObject(t, s3, "caches", "killed/c.rfcache"); len(obj) == 0 {
		t.Fatal("the next run uploaded no cache")
	}
	n = 0
	for range collect[int64](t, flow.From(tempCache(url, func(int64) { t.Error("not replayed") }))) {
		n++
	}
	if n != 2000 {
		t.Fatalf("the replay: %d items", n)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("after the replay $TMPDIR holds %v", entries)
	}
}
