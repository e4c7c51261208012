package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rowflow/rowflow/internal/testutil"
)

// writeFiles writes each file of files (slash-separated path → content)
// under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// eightEvents writes x.parquet, 8 events, into a new directory.
func eightEvents(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rows := make([]event, 8)
	for i := range rows {
		rows[i] = event{ID: int64(i), Lang: "en", Text: "t"}
	}
	testutil.WriteParquet(t, filepath.Join(dir, "x.parquet"), rows, 4)
	return dir
}

// A directory's format comes from its data files alone, found as the
// sources find them: files that are not data, and hidden or _-prefixed
// files and directories, do not decide it, wherever they come in the
// walk.
func TestFormatFromDataFilesOnly(t *testing.T) {
	for _, other := range []map[string]string{
		{"README.md": "about the data"},
		{".meta/info": "x"},
		{"_tmp/log": "x"},
		{"_tmp/a.csv": "id\n1\n", ".hidden.jsonl": "{}\n", "LICENSE": "x", "notes/todo.txt": "x"},
	} {
		dir := eightEvents(t)
		writeFiles(t, dir, other)
		out, errOut, code := rowflow(t, nil, "digest", dir)
		if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), " 8 rows") {
			t.Errorf("digest with %q beside x.parquet: exit %d, %s%s", other, code, out, errOut)
		}
	}
	// Compressed text files are data of their format, with every
	// extension the sources take (.zstd as well as .zst).
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := enc.EncodeAll([]byte(`{"id":1}`+"\n"+`{"id":2}`+"\n"+`{"id":3}`+"\n"), nil)
	for _, name := range []string{"a.jsonl.zstd", "a.ndjson.zst"} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{name: string(lines), "README.md": "x"})
		out, errOut, code := rowflow(t, nil, "digest", dir)
		if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), " 3 rows") {
			t.Errorf("digest of %s: exit %d, %s%s", name, code, out, errOut)
		}
	}
}

// A directory holding data files of two formats is an error naming both,
// not a read of one of them, for every command.
func TestFormatMixedIsAnError(t *testing.T) {
	dir := eightEvents(t)
	writeFiles(t, dir, map[string]string{"sub/y.csv.gz": "", "README.md": "x"})
	for _, cmd := range []string{"digest", "head", "reshard", "inspect"} {
		args := []string{cmd, dir}
		if cmd == "reshard" {
			args = []string{cmd, "-out", filepath.Join(t.TempDir(), "out"), dir}
		}
		_, errOut, code := rowflow(t, nil, args...)
		if code != 1 || !strings.Contains(errOut, "more than one format: Parquet (x.parquet), CSV (sub/y.csv.gz)") {
			t.Errorf("%s of Parquet and CSV files: exit %d, %s", cmd, code, errOut)
		}
	}
	// A text dataset whose files have different Hive columns is refused
	// by every command, naming the files; inspect does not take it for a
	// Parquet dataset without files.
	uneven := t.TempDir()
	writeFiles(t, uneven, map[string]string{"p=x/a.csv": "id\n1\n", "b.csv": "id\n2\n"})
	for _, cmd := range []string{"digest", "head", "inspect"} {
		if _, errOut, code := rowflow(t, nil, cmd, uneven); code != 1 || !strings.Contains(errOut, `inconsistent partition columns: b.csv has [], p=x/a.csv has ["p"]`) {
			t.Errorf("%s of CSV files with different Hive columns: exit %d, %s", cmd, code, errOut)
		}
	}
	// A directory with no data file says so.
	empty := t.TempDir()
	writeFiles(t, empty, map[string]string{"README.md": "x"})
	if _, errOut, code := rowflow(t, nil, "digest", empty); code != 1 || !strings.Contains(errOut, "no Parquet, CSV or JSON Lines files") {
		t.Errorf("digest of a directory without data: exit %d, %s", code, errOut)
	}
}

// reshard of a CSV or JSON Lines input in Hive folders writes the Hive
// columns as partition directories unless -partition-by says otherwise,
// and -schema names every column, the Hive columns too: a -schema that
// leaves one out is a usage error that says so, not an error about an
// option the command line did not give.
func TestReshardSchemaWithoutHiveColumn(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{"p=x/a.csv": "id,v\n1,a\n2,b\n", "p=y/b.csv": "id,v\n3,c\n"})
	out := filepath.Join(t.TempDir(), "out")
	_, errOut, code := rowflow(t, nil, "reshard", "-out", out, "-schema", "id:int64,v:string", in)
	if code != 2 || !strings.Contains(errOut, `-schema has no column "p", a Hive column of the input`) || strings.Contains(errOut, "PartitionBy") {
		t.Errorf("exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the failed reshard left %s: %v", out, err)
	}
	must(t, nil, "reshard", "-out", out, "-schema", "id:int64,v:string,p:string", in)
	if _, err := os.Stat(filepath.Join(out, "p=y")); err != nil {
		t.Errorf("the Hive column as -schema names it: %v", err)
	}
	// Without directories, the column is still one -schema must name.
	_, errOut, code = rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "flat"), "-partition-by", "", "-schema", "id:int64,v:string", in)
	if code != 1 || !strings.Contains(errOut, `Hive column "p" is not in the schema`) {
		t.Errorf("-partition-by \"\": exit %d, %s", code, errOut)
	}
}
