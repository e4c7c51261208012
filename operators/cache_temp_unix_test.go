//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package operators_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// tempCache is the disk cache the child and the parent of
// TestKilledCacheBuildTempsRemoved build: a Map in the cached pipeline
// calls at on each row.
func tempCache(path string, at func(v int64)) flow.Source[int64] {
	xs := make([]int64, 2000)
	for i := range xs {
		xs[i] = int64(i)
	}
	p := flow.From(sources.Slice(xs, sources.PartitionItems(100))).
		Via(operators.Map(func(v int64) (int64, error) { at(v); return v, nil }))
	return operators.Cache[int64](p, operators.OnDisk(path))
}

func cacheTemps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".c.rfcache.tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestKilledCacheBuildTempsRemoved: a cache build killed with SIGKILL
// leaves its temporary file (issue 27, finding 13: no later run removed
// it); the next run of the cache removes it, while a temporary that a
// live build is writing is left alone.
func TestKilledCacheBuildTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.rfcache")
	cmd, sc, out := testutil.StartChild(t, "TestHelperCacheBuild", path)
	if !sc.Scan() || sc.Text() != "building" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not report its build: %q\n%s", sc.Text(), out.Bytes())
	}
	live := cacheTemps(t, dir)
	if len(live) != 1 {
		t.Fatalf("the child's build: temporaries %v", live)
	}
	// A build in this process while the child's is under way leaves the
	// child's temporary alone.
	want := 0
	for range collect[int64](t, flow.From(tempCache(path, func(int64) {}))) {
		want++
	}
	if got := cacheTemps(t, dir); len(got) != 1 || got[0] != live[0] {
		t.Fatalf("a build beside a live one: temporaries %v, want %v", got, live)
	}
	os.Remove(path)

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !exit.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("the child: %v\n%s", err, out.Bytes())
	}
	if got := cacheTemps(t, dir); len(got) != 1 {
		t.Fatalf("after the kill: temporaries %v", got)
	}
	// The next run removes the killed build's temporary, and builds.
	n := 0
	for range collect[int64](t, flow.From(tempCache(path, func(int64) {}))) {
		n++
	}
	if got := cacheTemps(t, dir); n != want || len(got) != 0 {
		t.Fatalf("the next run: %d items (want %d), temporaries %v", n, want, got)
	}
	// A replay removes one too.
	stale := filepath.Join(dir, ".c.rfcache.tmp-stale")
	if err := os.WriteFile(stale, []byte("rowflow cache v4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n = 0
	for range collect[int64](t, flow.From(tempCache(path, func(int64) { t.Error("not replayed") }))) {
		n++
	}
	if got := cacheTemps(t, dir); n != want || len(got) != 0 {
		t.Fatalf("a replay: %d items, temporaries %v", n, got)
	}
}

// TestHelperCacheBuild is the child of TestKilledCacheBuildTempsRemoved:
// it builds the cache and, in the middle of the build, says so on file
// descriptor 3 and waits to be killed.
func TestHelperCacheBuild(t *testing.T) {
	path := testutil.ChildArg(t)
	events := os.NewFile(3, "events")
	src := tempCache(path, func(v int64) {
		if v == 1000 {
			fmt.Fprintln(events, "building")
			io.Copy(io.Discard, os.Stdin) // until the parent kills the process
			t.Error("not killed")
		}
	})
	for _, err := range flow.Items[int64](t.Context(), flow.From(src)) {
		if err != nil && !strings.Contains(err.Error(), "killed") {
			t.Fatal(err)
		}
	}
}
