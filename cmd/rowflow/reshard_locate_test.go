package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// Parquet output takes its columns from the first file's schema. When a
// later file's schema differs (a column missing, or of another type),
// reshard fails, and the error names the input file and row that do not
// fit, although it comes from the sink, which does not know where the row
// was read: the source locates it (flow.RowLocator).
func TestReshardRowErrorNamesInputFile(t *testing.T) {
	type first struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
	}
	type noID struct {
		Text string `parquet:"text"`
	}
	type stringID struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	for name, write := range map[string]func(dir string){
		"column missing": func(dir string) {
			testutil.WriteParquet(t, filepath.Join(dir, "odd.parquet"), []noID{{Text: "c"}}, 1)
		},
		"column of another type": func(dir string) {
			testutil.WriteParquet(t, filepath.Join(dir, "odd.parquet"), []stringID{{ID: "x", Text: "c"}}, 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			in := t.TempDir()
			testutil.WriteParquet(t, filepath.Join(in, "a.parquet"), []first{{ID: 1, Text: "a"}, {ID: 2, Text: "b"}}, 2)
			write(in)
			out := filepath.Join(t.TempDir(), "out")
			_, errOut, code := rowflow(t, nil, "reshard", "-out", out, in)
			if code != 1 {
				t.Fatalf("reshard: exit %d, want 1: %s", code, errOut)
			}
			if !strings.Contains(errOut, "(odd.parquet, row 0)") {
				t.Errorf("reshard: the error does not name the input file odd.parquet:\n%s", errOut)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("reshard left its output directory: %v", err)
			}
		})
	}
}
