package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// A column whose physical type, or integer signedness, differs between
// the files of a dataset has no bounds: inspect says that the types
// differ and names them with a file of each, instead of comparing the
// values of one type as the other. Columns of one type keep their bounds
// across files.
func TestInspectColumnTypesDiffer(t *testing.T) {
	type ints struct {
		X int64 `parquet:"x"`
		Y int64 `parquet:"y"`
		Z int64 `parquet:"z"`
	}
	type mixed struct {
		X string `parquet:"x"`
		Y uint64 `parquet:"y"`
		Z int64  `parquet:"z"`
	}
	dir := t.TempDir()
	testutil.WriteParquet(t, filepath.Join(dir, "a.parquet"), []ints{{X: 5, Y: -3, Z: 1}, {X: -3, Y: 7, Z: 2}}, 2)
	testutil.WriteParquet(t, filepath.Join(dir, "b.parquet"), []mixed{{X: "zz", Y: 1, Z: 9}, {X: "aa", Y: 1 << 63, Z: -4}}, 2)
	testutil.WriteParquet(t, filepath.Join(dir, "c.parquet"), []mixed{{X: "mm", Y: 2, Z: 0}}, 1)
	out, errOut, code := rowflow(t, nil, "inspect", dir)
	if code != 0 {
		t.Fatalf("inspect: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"  x                        -  -  0  (types differ: INT(64,true) in a.parquet, STRING in b.parquet; bounds not compared)\n",
		"  y                        -  -  0  (types differ: INT(64,true) in a.parquet, INT(64,false) in b.parquet; bounds not compared)\n",
		"  z                        -4  9  0\n",
		"3 files, 5 rows",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}

// inspect of CSV or JSON Lines files without records lists them and says
// there is no schema to infer, exit 0, as it lists a Parquet dataset of no
// rows.
func TestInspectTextWithoutRecords(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.csv": "id,v\n", "b.csv": ""})
	out, errOut, code := rowflow(t, nil, "inspect", dir)
	if code != 0 || !strings.Contains(out, "a.csv  bytes 5") || !strings.Contains(out, "2 CSV files, 5 bytes, no records: no schema to infer") {
		t.Errorf("exit %d, %s\n%s", code, errOut, out)
	}
}
