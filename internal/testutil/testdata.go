package testutil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// ParquetGoTestdata returns the testdata directory of the parquet-go
// module this module depends on: about fifty Parquet files written by
// other implementations, present wherever the module has been downloaded.
// It asks the go command (`go list -m`) from the test's directory and fails
// the test if the directory cannot be found.
func ParquetGoTestdata(t testing.TB) string {
	t.Helper()
	dir, err := parquetGoDir()
	if err != nil {
		t.Fatalf("finding parquet-go's testdata: %v", err)
	}
	return filepath.Join(dir, "testdata")
}

// SharedCorpus returns the directory of the optional parquet-testing
// corpus, ../shared/testdata/parquet-testing beside the module root, or
// skips the test, saying why, when it is not there. A fresh clone has no
// such directory; CI has.
func SharedCorpus(t testing.TB) string {
	t.Helper()
	dir, ok := LookupSharedCorpus(t)
	if !ok {
		t.Skipf("the parquet-testing corpus is not at %s (it is optional: a clone has no ../shared)", dir)
	}
	return dir
}

// LookupSharedCorpus is [SharedCorpus] for tests that use the corpus when
// it is there and go on without it: it returns the directory and whether
// it exists.
func LookupSharedCorpus(t testing.TB) (string, bool) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("finding the module root: %v", err)
	}
	dir := filepath.Join(filepath.Dir(root), "shared", "testdata", "parquet-testing")
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// ParquetTestingFile returns the path of a file of the parquet-testing
// corpus, named by its path inside it ("data/alltypes_plain.parquet").
// Files of data/ that parquet-go ships in its testdata (the same bytes)
// come from there, so tests that use them run everywhere; others come from
// the shared corpus, and the test is skipped when that is absent.
func ParquetTestingFile(t testing.TB, name string) string {
	t.Helper()
	if rest, ok := strings.CutPrefix(name, "data/"); ok {
		if p := filepath.Join(ParquetGoTestdata(t), rest); fileExists(p) {
			return p
		}
	}
	p := filepath.Join(SharedCorpus(t), filepath.FromSlash(name))
	if !fileExists(p) {
		t.Fatalf("%s is not in the parquet-testing corpus", name)
	}
	return p
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

var (
	goListOnce sync.Once
	goModDir   string
	parquetDir string
	goListErr  error
)

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	goListOnce.Do(goList)
	return goModDir, goListErr
}

func parquetGoDir() (string, error) {
	goListOnce.Do(goList)
	return parquetDir, goListErr
}

func goList() {
	args := []string{"list", "-m", "-f", "{{.Dir}}", "github.com/rowflow/rowflow", "github.com/parquet-go/parquet-go"}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		goListErr = fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		return
	}
	dirs := strings.Fields(stdout.String())
	if len(dirs) != 2 {
		goListErr = fmt.Errorf("go %s gave %q, want two module directories (is the module vendored?)", strings.Join(args, " "), stdout.String())
		return
	}
	goModDir, parquetDir = dirs[0], dirs[1]
}
