package operators_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// TestDataFingerprint: a file source's data fingerprint changes when a
// file is rewritten, also under Concat; a slice reports none, and a
// Concat of slices none either.
func TestDataFingerprint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.csv")
	write := func(s string) {
		if err := os.WriteFile(file, []byte("n\n"+s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type row struct {
		N int64 `csv:"n"`
	}
	csv := flow.From(text.CSV[row](dir))
	slice := flow.From(sources.Slice([]row{{1}}))
	both := flow.From(operators.Concat[row](slice, csv))
	fps := func() (string, string, string) {
		t.Helper()
		var out [3]string
		for i, p := range []*flow.Pipeline{csv, both, flow.From(operators.Concat[row](slice))} {
			fp, err := p.DataFingerprint(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			out[i] = fp
		}
		return out[0], out[1], out[2]
	}
	write("1")
	a1, b1, s1 := fps()
	if fp, err := slice.DataFingerprint(t.Context()); err != nil || fp != "" || s1 != "" {
		t.Fatalf("a slice: %q, %v; a Concat of slices: %q", fp, err, s1)
	}
	if a1 == "" || b1 == "" || a1 == b1 {
		t.Fatalf("fingerprints %q and %q", a1, b1)
	}
	if a, b, _ := fps(); a != a1 || b != b1 {
		t.Fatalf("unchanged data: %q, %q, then %q, %q", a1, b1, a, b)
	}
	write("2") // the same size
	if a, b, _ := fps(); a == a1 || b == b1 {
		t.Fatalf("a rewritten file: %q, %q, as before", a, b)
	}
}
