package operators_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
)

// TestCacheTruncatedFile: a cache file cut short inside a record fails the
// replay with an error that says it is truncated, wherever the cut falls.
func TestCacheTruncatedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	cache := operators.Cache[int64](flow.From(source(1000, 50, 16)), operators.OnDisk(path))
	if got := collect[int64](t, flow.From(cache)); len(got) != 1000 {
		t.Fatalf("%d items", len(got))
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(whole) / 2, len(whole) - 20, len(whole) - 4} {
		if err := os.WriteFile(path, whole[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		var runErr error
		for _, err := range flow.Items[int64](t.Context(), flow.From(cache)) {
			if err != nil {
				runErr = err
			}
		}
		if runErr == nil || !strings.Contains(runErr.Error(), "truncated") {
			t.Errorf("cut at %d of %d bytes: %v, want an error saying the file is truncated", cut, len(whole), runErr)
		}
	}
}
