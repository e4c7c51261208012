package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// rowflowBin is the command, built once for the tests.
var rowflowBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rowflow-cmd-")
	if err != nil {
		panic(err)
	}
	rowflowBin = filepath.Join(dir, "rowflow")
	if out, err := exec.Command("go", "build", "-o", rowflowBin, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type event struct {
	ID    int64   `parquet:"id"`
	Lang  string  `parquet:"lang"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
}

// dataset writes 1000 events into Hive directories by language.
func dataset(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	src := sources.Generate(1000, func(i int64) (event, error) {
		return event{ID: i, Lang: []string{"en", "de", "fr"}[i%3], Score: float64(i%100) / 100, Text: "text " + string(rune('a'+i%26))}, nil
	}, sources.PartitionItems(100))
	err := flow.From(src).To(shards.Parquet[event](dir, shards.PartitionBy("lang"), shards.RowGroupRows(50))).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// rowflow runs the command and returns its output and exit code.
func rowflow(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(rowflowBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func must(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out, errOut, code := rowflow(t, env, args...)
	if code != 0 {
		t.Fatalf("rowflow %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func TestInspectHeadDigest(t *testing.T) {
	data := dataset(t)
	out := must(t, nil, "inspect", data)
	for _, want := range []string{"lang=de/part-00000-00000.parquet  rows 333  row groups 7", "hive lang=en", "3 files, 1000 rows", "compression zstd", "score", "0.99"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	out = must(t, nil, "head", "-n", "2", "-json", data)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], `{"id":1,"lang":"de","score":0.01,"text":"text b"}`) {
		t.Errorf("head -json:\n%s", out)
	}
	out = must(t, nil, "head", "-n", "3", data)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "id") {
		t.Errorf("head table:\n%s", out)
	}
	d1 := must(t, nil, "digest", data)
	d3 := must(t, nil, "digest", "-parallel", "3", data)
	if d1 != d3 || !strings.HasSuffix(strings.TrimSpace(d1), "1000 rows") {
		t.Errorf("digest at 1: %q, at 3: %q", d1, d3)
	}
	if out := must(t, nil, "verify", "-parallel", "3", data); !strings.HasPrefix(out, "ok: parallelism 1 and 3 give the same 1000 rows") {
		t.Errorf("verify: %s", out)
	}
}

// inspect shows the bounds of unsigned columns (logical types UINT_32 and
// UINT_64, as the row-ID columns are) as unsigned numbers, ordered as
// unsigned numbers are.
func TestInspectUnsigned(t *testing.T) {
	type row struct {
		U  uint64 `parquet:"u"`
		U2 uint32 `parquet:"u2"`
		I  int64  `parquet:"i"`
	}
	path := filepath.Join(t.TempDir(), "u.parquet")
	testutil.WriteParquet(t, path, []row{
		{U: 1 << 63, U2: 4_000_000_000, I: -1},
		{U: 1, U2: 7, I: 1 << 62},
		{U: math.MaxUint64, U2: 1 << 31, I: -5},
	}, 1) // a row group per row: the bounds are compared across them
	out := must(t, nil, "inspect", path)
	for _, want := range []string{
		"  u                        1  18446744073709551615  0\n",
		"  u2                       7  4000000000  0\n",
		"  i                        -5  4611686018427387904  0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}

// Two ranks reshard the dataset, one told its rank by flags and one by a
// Kubernetes Indexed Job's environment; commit checks the union, and the
// shards read back hold every row once.
func TestReshardCommitVerify(t *testing.T) {
	data := dataset(t)
	out := filepath.Join(t.TempDir(), "shards")
	r0 := must(t, nil, "reshard", "-out", out, "-rows-per-file", "120", "-rank", "0", "-world", "2", "-shuffle-window", "4", "-seed", "3", data)
	r1 := must(t, []string{"JOB_COMPLETION_INDEX=1"}, "reshard", "-out", out, "-rows-per-file", "120", "-completions", "2", "-shuffle-window", "4", "-seed", "3", data)
	if !strings.HasPrefix(r0, "rank 0 of 2 (explicit)") || !strings.HasPrefix(r1, "rank 1 of 2 (JOB_COMPLETION_INDEX") {
		t.Fatalf("reshard said\n%s%s", r0, r1)
	}
	if c := must(t, nil, "commit", "-world", "2", "-rows", "1000", out); !strings.Contains(c, "2 ranks") || !strings.Contains(c, "1000 rows") {
		t.Fatalf("commit: %s", c)
	}
	if v := must(t, nil, "verify", "-manifest", out); strings.Count(v, ": ok") != 2 {
		t.Fatalf("verify -manifest: %s", v)
	}
	if d := must(t, nil, "digest", out); !strings.HasSuffix(strings.TrimSpace(d), "1000 rows") {
		t.Fatalf("digest of the shards: %s", d)
	}
	// A file changed after the commit is found.
	files, _ := filepath.Glob(filepath.Join(out, "lang=*", "part-00001-*.parquet"))
	if len(files) == 0 {
		t.Fatal("no shards of rank 1")
	}
	b, _ := os.ReadFile(files[0])
	b[len(b)/2] ^= 0xff
	os.WriteFile(files[0], b, 0o644)
	_, errOut, code := rowflow(t, nil, "verify", "-manifest", out)
	if code != 1 || !strings.Contains(errOut, filepath.Base(files[0])) {
		t.Fatalf("verify of a changed file: exit %d, %s", code, errOut)
	}
}

func TestBadUsageAndBadFiles(t *testing.T) {
	data := dataset(t)
	for _, c := range []struct {
		args []string
		env  []string
		code int
		msg  string
	}{
		{[]string{}, nil, 2, "usage: rowflow <command>"},
		{[]string{"frobnicate"}, nil, 2, `unknown command "frobnicate"`},
		{[]string{"reshard", data}, nil, 2, "-out is required"},
		{[]string{"head", "-n", "x", data}, nil, 2, "invalid value"},
		{[]string{"inspect"}, nil, 2, "want 1 argument"},
		{[]string{"inspect", filepath.Join(data, "nope")}, nil, 1, "nope"},
		{[]string{"reshard", "-out", t.TempDir(), data}, []string{"RANK=1"}, 2, "WORLD_SIZE"},
		{[]string{"head", "-filter", "x", data}, nil, 2, "flag provided but not defined"},
		{[]string{"reshard", "-out", t.TempDir(), "-filter", "score >", data}, nil, 2, "-filter"},
		{[]string{"commit", t.TempDir()}, nil, 2, "-world"},
		{[]string{"reshard", "-out", t.TempDir(), "-format", "xml", data}, nil, 2, `-format "xml": want parquet or jsonl`},
		{[]string{"reshard", "-out", t.TempDir(), "-schema", "id:int", data}, nil, 2, `column "id": unknown type "int"`},
		{[]string{"reshard", "-out", t.TempDir(), "-schema", "id", data}, nil, 2, `"id": want name:type`},
		{[]string{"reshard", "-out", t.TempDir(), "-format", "jsonl", "-schema", "id:int64", data}, nil, 2, "-schema is for Parquet output"},
		{[]string{"reshard", "-out", t.TempDir(), "-writers", "9223372036854775807", data}, nil, 2, "-writers 9223372036854775807: must be from 1 to 4096"},
		{[]string{"reshard", "-out", t.TempDir(), "-writers", "4097", "-format", "jsonl", data}, nil, 2, "-writers 4097: must be from 1 to 4096"},
		{[]string{"reshard", "-out", t.TempDir(), "-writers", "0", data}, nil, 2, "-writers 0: must be from 1 to 4096"},
		{[]string{"reshard", "-out", t.TempDir(), "-rows-per-file", "-5", data}, nil, 2, "-rows-per-file -5: must be at least 0"},
	} {
		_, errOut, code := rowflow(t, c.env, c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("rowflow %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.msg)
		}
	}
	// A corrupt file: the error names it.
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	os.WriteFile(bad, []byte("PAR1 this is not parquet PAR1"), 0o644)
	for _, cmd := range []string{"inspect", "head", "digest"} {
		_, errOut, code := rowflow(t, nil, cmd, bad)
		if code != 1 || !strings.Contains(errOut, "bad.parquet") {
			t.Errorf("%s of a corrupt file: exit %d, %q", cmd, code, errOut)
		}
	}
}

// CSV and JSON Lines become Parquet with the columns -schema gives; their
// values are parsed into the columns' types, and a value that does not
// parse fails the run with its row and column, leaving no output.
func TestReshardTextToParquet(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,text,score\n1,a,0.5\n2,b,\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := rowflow(t, nil, "reshard", "-out", out, csvPath); code != 2 || !strings.Contains(errOut, "Parquet output of CSV input needs -schema") {
		t.Fatalf("CSV to Parquet without -schema: exit %d, %s", code, errOut)
	}
	must(t, nil, "reshard", "-out", out, "-schema", "id:int64,text:string,score:float64", csvPath)
	want := `{"id":1,"text":"a","score":0.5,"row_id_key1":`
	if got := must(t, nil, "head", "-n", "2", "-json", out); !strings.HasPrefix(got, want) || !strings.Contains(got, `{"id":2,"text":"b","score":null,`) {
		t.Fatalf("head of the Parquet output:\n%s\nwant it to start %s", got, want)
	}
	jsonPath := filepath.Join(dir, "in.jsonl")
	os.WriteFile(jsonPath, []byte(`{"id":1,"tokens":[3,4]}`+"\n"+`{"id":"x"}`+"\n"), 0o644)
	bad := filepath.Join(t.TempDir(), "bad")
	_, errOut, code := rowflow(t, nil, "reshard", "-out", bad, "-schema", "id:int64,tokens:[]int32", jsonPath)
	if code != 1 || !strings.Contains(errOut, `column "id": cannot write string "x"`) || !strings.Contains(errOut, "partition 0, row ") {
		t.Fatalf("a value that does not parse: exit %d, %s", code, errOut)
	}
	if entries, _ := os.ReadDir(bad); len(entries) > 0 {
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				t.Errorf("a failed reshard left %s", e.Name())
			}
		}
	}
	os.WriteFile(jsonPath, []byte(`{"id":1,"tokens":[3,4]}`+"\n"+`{"id":2}`+"\n"), 0o644)
	good := filepath.Join(t.TempDir(), "good")
	must(t, nil, "reshard", "-out", good, "-schema", "id:int64,tokens:[]int32", "-row-id-column", "", jsonPath)
	if got := must(t, nil, "head", "-json", good); got != `{"id":1,"tokens.list.element":[3,4]}`+"\n"+`{"id":2,"tokens.list.element":null}`+"\n" {
		t.Fatalf("head of JSON Lines resharded to Parquet:\n%s", got)
	}
}

// The README's CSV example: a list column's CSV field is a JSON array, and
// an empty field is null; a field that is not an array fails the run
// with its row and column.
func TestReshardCSVLists(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "data.csv")
	os.WriteFile(csvPath, []byte("id,text,tokens\n1,a,\"[1,2,3]\"\n2,b,[]\n3,c,\n"), 0o644)
	out := filepath.Join(t.TempDir(), "shards")
	must(t, nil, "reshard", "-out", out, "-schema", "id:int64,text:string,tokens:[]int32", csvPath)
	type row struct {
		ID     *int64   `parquet:"id,optional"`
		Text   *string  `parquet:"text,optional"`
		Tokens []*int32 `parquet:"tokens,list,optional"`
	}
	got := testutil.ReadParquet[row](t, filepath.Join(out, "part-00000-00000.parquet"))
	var lines []string
	for _, r := range got {
		toks := []string{}
		for _, x := range r.Tokens {
			toks = append(toks, fmt.Sprint(*x))
		}
		lines = append(lines, fmt.Sprintf("%d %s [%s]", *r.ID, *r.Text, strings.Join(toks, " ")))
	}
	if want := []string{"1 a [1 2 3]", "2 b []", "3 c []"}; !slices.Equal(lines, want) {
		t.Errorf("rows read back %q, want %q", lines, want)
	}
	if got := must(t, nil, "head", "-n", "1", "-json", out); !strings.HasPrefix(got, `{"id":1,"text":"a","tokens.list.element":[1,2,3],`) {
		t.Errorf("head -json: %s", got)
	}
	os.WriteFile(csvPath, []byte("id,text,tokens\n1,a,[1]\n2,b,1 2\n"), 0o644)
	_, errOut, code := rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "bad"), "-schema", "id:int64,text:string,tokens:[]int32", csvPath)
	if code != 1 || !strings.Contains(errOut, `column "tokens": string "1 2" is not a JSON array`) || !strings.Contains(errOut, "partition 0, row ") {
		t.Errorf("a list field that is not a JSON array: exit %d, %s", code, errOut)
	}
}

// The command list names the formats reshard writes, Parquet and JSON
// Lines, and not CSV, which its -format refuses.
func TestUsageNamesReshardFormats(t *testing.T) {
	_, usage, code := rowflow(t, nil, "-h")
	if code != 0 {
		t.Fatalf("rowflow -h: exit %d", code)
	}
	var line string
	for l := range strings.Lines(usage) {
		if strings.HasPrefix(strings.TrimSpace(l), "reshard ") {
			line = l
		}
	}
	if !strings.Contains(line, "Parquet or JSON Lines shards") || strings.Contains(line, "CSV") {
		t.Errorf("rowflow -h says of reshard %q, want Parquet or JSON Lines shards", line)
	}
	if _, errOut, code := rowflow(t, nil, "reshard", "-out", t.TempDir(), "-format", "csv", dataset(t)); code != 2 || !strings.Contains(errOut, "want parquet or jsonl") {
		t.Errorf("reshard -format csv: exit %d, %s", code, errOut)
	}
}

// rowflow <command> -h prints the command's usage once, on standard
// error, and exits 0.
func TestCommandHelpOnce(t *testing.T) {
	for _, cmd := range []string{"inspect", "head", "digest", "reshard", "verify", "commit", "cleanup"} {
		stdout, stderr, code := rowflow(t, nil, cmd, "-h")
		if n := strings.Count(stderr, "usage: rowflow "+cmd+" "); code != 0 || n != 1 || stdout != "" {
			t.Errorf("rowflow %s -h: exit %d, usage printed %d times, stdout %q", cmd, code, n, stdout)
		}
		if n := strings.Count(stderr, "examples:"); n != 1 {
			t.Errorf("rowflow %s -h: examples printed %d times", cmd, n)
		}
	}
}

func TestCleanup(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".part-00000-00001.jsonl.zst.tmp-1234")
	keep := filepath.Join(dir, "part-00000-00000.jsonl.zst")
	os.WriteFile(stale, []byte("x"), 0o644)
	os.WriteFile(keep, []byte("y"), 0o644)
	if out := must(t, nil, "cleanup", "-n", dir); out != "would remove "+stale+"\n" {
		t.Fatalf("cleanup -n: %q", out)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatal("cleanup -n removed a file")
	}
	if out := must(t, nil, "cleanup", dir); out != "removed "+stale+"\n" {
		t.Fatalf("cleanup: %q", out)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatal("the stale temporary is still there")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal("cleanup removed a data file")
	}
}

// verify -against compares two outputs of one dataset row by row by their
// row IDs, whatever their layout, and names a changed row.
func TestVerifyAgainst(t *testing.T) {
	data := dataset(t)
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	must(t, nil, "reshard", "-out", a, "-format", "jsonl", "-rows-per-file", "100", "-compression", "none", data)
	must(t, nil, "reshard", "-out", b, "-format", "jsonl", "-rows-per-file", "333", "-writers", "2", "-parallel", "3", "-compression", "gzip", data)
	if out := must(t, nil, "verify", "-against", b, a); !strings.HasPrefix(out, "ok: ") || !strings.Contains(out, "1000 rows") {
		t.Fatalf("verify -against: %s", out)
	}
	// Parquet output holds the same rows as JSON Lines output.
	pq := filepath.Join(t.TempDir(), "pq")
	must(t, nil, "reshard", "-out", pq, "-rows-per-file", "250", "-compression", "snappy", data)
	if out := must(t, nil, "verify", "-against", pq, b); !strings.HasPrefix(out, "ok: ") || !strings.Contains(out, "1000 rows") {
		t.Fatalf("verify -against of Parquet and JSON Lines output: %s", out)
	}
	// Change one row's text in a's files.
	files, _ := filepath.Glob(filepath.Join(a, "lang=*", "part-*.jsonl"))
	if len(files) < 3 {
		t.Fatalf("a's files: %v", files)
	}
	body, _ := os.ReadFile(files[2])
	changed := strings.Replace(string(body), `"text":"text `, `"text":"TEXT `, 1)
	os.WriteFile(files[2], []byte(changed), 0o644)
	_, errOut, code := rowflow(t, nil, "verify", "-against", b, a)
	if code != 1 || !strings.Contains(errOut, "differs") || !strings.Contains(errOut, "TEXT") {
		t.Fatalf("verify -against a changed row: exit %d, %s", code, errOut)
	}
	// -rename renames a column on the way.
	c := filepath.Join(t.TempDir(), "c")
	must(t, nil, "reshard", "-out", c, "-rename", "text=body", "-columns", "id,body", data)
	if out := must(t, nil, "head", "-n", "1", "-json", c); !strings.HasPrefix(out, `{"id":1,"body":"text b",`) {
		t.Fatalf("renamed: %s", out)
	}
}

// TestHelpCommand: rowflow help COMMAND prints the command's own usage,
// as COMMAND -h does, not the general usage.
func TestHelpCommand(t *testing.T) {
	for _, cmd := range []string{"inspect", "reshard", "cleanup"} {
		_, help, code := rowflow(t, nil, "help", cmd)
		_, dash, _ := rowflow(t, nil, cmd, "-h")
		if code != 0 || help != dash || !strings.Contains(help, "usage: rowflow "+cmd) {
			t.Errorf("rowflow help %s: exit %d\n%s\nwant what rowflow %s -h prints:\n%s", cmd, code, help, cmd, dash)
		}
	}
	if _, out, code := rowflow(t, nil, "help", "nosuch"); code != 0 || !strings.Contains(out, "commands:") {
		t.Errorf("rowflow help nosuch: exit %d, %s", code, out)
	}
}

// TestReshardPartitionBy: -partition-by writes Hive directories by the
// values of the columns, for Parquet and JSON Lines output, and the
// output reads back with the partition column and every row.
func TestReshardPartitionBy(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,lang,score\n1,en,0.5\n2,fr,0.25\n3,en,1\n4,de,2\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, "-schema", "id:int64,lang:string,score:float64", "-partition-by", "lang", "-row-id-column", "", csvPath)
	for _, lang := range []string{"de", "en", "fr"} {
		files, err := filepath.Glob(filepath.Join(out, "lang="+lang, "*.parquet"))
		if err != nil || len(files) != 1 {
			t.Fatalf("lang=%s: files %v, %v", lang, files, err)
		}
	}
	want := `{"id":4,"lang":"de","score":2}` + "\n" + `{"id":1,"lang":"en","score":0.5}` + "\n" +
		`{"id":3,"lang":"en","score":1}` + "\n" + `{"id":2,"lang":"fr","score":0.25}` + "\n"
	if got := must(t, nil, "head", "-n", "10", "-json", out); got != want {
		t.Fatalf("the partitioned output read back:\n%s\nwant\n%s", got, want)
	}
	jout := filepath.Join(t.TempDir(), "jout")
	must(t, nil, "reshard", "-out", jout, "-format", "jsonl", "-partition-by", "lang", csvPath)
	if files, _ := filepath.Glob(filepath.Join(jout, "lang=fr", "*.jsonl*")); len(files) != 1 {
		t.Fatalf("JSON Lines lang=fr: %v", files)
	}
	jsonPath := filepath.Join(dir, "in.jsonl")
	os.WriteFile(jsonPath, []byte(`{"id":1,"tags":"a"}`+"\n"+`{"id":2,"tags":[1,2]}`+"\n"), 0o644)
	if _, errOut, code := rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "l"), "-format", "jsonl", "-partition-by", "tags", jsonPath); code != 1 || !strings.Contains(errOut, `PartitionBy("tags"): the record's value [1 2] ([]interface {}) is not a string`) {
		t.Fatalf("-partition-by of a list value: exit %d, %s", code, errOut)
	}
	if _, errOut, code := rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "x"), "-schema", "id:int64,lang:string,score:float64", "-partition-by", "nope", csvPath); code == 0 || !strings.Contains(errOut, "nope") {
		t.Fatalf("-partition-by of a column that is not there: exit %d, %s", code, errOut)
	}
}

// TestReshardTextColumns: -rename and -columns work for CSV and JSON Lines
// input as for Parquet: renamed first, then chosen in the order given; a
// CSV column that is not there is an error, a JSON Lines key that a
// record lacks is null.
func TestReshardTextColumns(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,text,score\n1,a,0.5\n2,b,0.25\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, "-rename", "text=body", "-columns", "body,id", "-schema", "body:string,id:int64", "-row-id-column", "", csvPath)
	if got, want := must(t, nil, "head", "-json", out), `{"body":"a","id":1}`+"\n"+`{"body":"b","id":2}`+"\n"; got != want {
		t.Fatalf("CSV renamed and chosen:\n%s\nwant\n%s", got, want)
	}
	if _, errOut, code := rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "x"), "-format", "jsonl", "-columns", "id,text", "-rename", "text=body", csvPath); code != 1 || !strings.Contains(errOut, `the record has no column "text" (its columns, after -rename: id, body, score)`) {
		t.Fatalf("-columns of a renamed-away CSV column: exit %d, %s", code, errOut)
	}
	jsonPath := filepath.Join(dir, "in.jsonl")
	os.WriteFile(jsonPath, []byte(`{"id":1,"lang":"en","x":true}`+"\n"+`{"id":2}`+"\n"), 0o644)
	jout := filepath.Join(t.TempDir(), "jout")
	must(t, nil, "reshard", "-out", jout, "-format", "jsonl", "-columns", "lang,id", "-row-id-column", "", jsonPath)
	if got, want := must(t, nil, "head", "-json", jout), `{"lang":"en","id":1}`+"\n"+`{"lang":null,"id":2}`+"\n"; got != want {
		t.Fatalf("JSON Lines chosen:\n%s\nwant\n%s", got, want)
	}
	if _, errOut, code := rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "y"), "-format", "jsonl", "-filter", "id > 1", jsonPath); code != 2 || !strings.Contains(errOut, "-filter reads Parquet datasets only") {
		t.Fatalf("-filter of JSON Lines: exit %d, %s", code, errOut)
	}
}

// TestReshardOwnOutput: resharding reshard's output keeps its rows' IDs
// (its row-ID columns are read back as the IDs and written again) and its
// Hive directories, unless -partition-by says otherwise.
func TestReshardOwnOutput(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,lang\n1,en\n2,fr\n3,en\n4,de\n"), 0o644)
	a := filepath.Join(t.TempDir(), "a")
	must(t, nil, "reshard", "-out", a, "-schema", "id:int64,lang:string", "-partition-by", "lang", csvPath)
	// The IDs are compared, not the row-ID columns: each writer encodes
	// the IDs of its own rows (see shards.RowIDColumn).
	want := withIDs(t, must(t, nil, "head", "-json", a))
	if !strings.Contains(want, `"row_id":`) {
		t.Fatalf("the first output has no row IDs:\n%s", want)
	}
	b := filepath.Join(t.TempDir(), "b")
	must(t, nil, "reshard", "-out", b, "-rows-per-file", "1", a)
	if got := withIDs(t, must(t, nil, "head", "-json", b)); got != want {
		t.Fatalf("resharded output:\n%s\nwant the rows and IDs of the first:\n%s", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(b, "lang=*", "*.parquet"))
	if len(files) != 4 {
		t.Fatalf("the resharded output's Hive files: %v", files)
	}
	flat := filepath.Join(t.TempDir(), "flat")
	must(t, nil, "reshard", "-out", flat, "-partition-by", "", a)
	if dirs, _ := filepath.Glob(filepath.Join(flat, "lang=*")); len(dirs) != 0 {
		t.Fatalf("-partition-by \"\" wrote Hive directories %v", dirs)
	}
	if got := withIDs(t, must(t, nil, "head", "-json", flat)); got != want {
		t.Fatalf("flattened output:\n%s\nwant\n%s", got, want)
	}
	// JSON Lines output, resharded again as JSON Lines, keeps the IDs too.
	j := filepath.Join(t.TempDir(), "j")
	must(t, nil, "reshard", "-out", j, "-format", "jsonl", a)
	j2 := filepath.Join(t.TempDir(), "j2")
	must(t, nil, "reshard", "-out", j2, "-format", "jsonl", "-rows-per-file", "1", j)
	if got, want := must(t, nil, "head", "-json", j2), must(t, nil, "head", "-json", j); got != want || !strings.Contains(got, `"row_id_hi":`) {
		t.Fatalf("JSON Lines resharded:\n%s\nwant\n%s", got, want)
	}
	if out := must(t, nil, "verify", "-against", a, j2); !strings.HasPrefix(out, "ok: ") || !strings.Contains(out, "4 rows") {
		t.Fatalf("verify -against of the first output and the twice-resharded JSON Lines: %s", out)
	}
}

// TestReshardTypedSchema: -schema takes timestamp, date, time and decimal
// types, and head and inspect show their values as text.
func TestReshardTypedSchema(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,ts,tstz,d,t,price,big\n"+
		"1,2024-03-01 10:20:30.123456,2024-03-01T10:20:30+02:00,2024-03-01,10:20:30.5,12.34,-12345678901234567890.12\n"+
		"2,,,,,,\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, "-row-id-column", "", "-schema",
		"id:int64, ts:timestamp, tstz:timestamp[ms, tz], d:date, t:time, price:decimal(6,2), big:decimal(30,2)", csvPath)
	want := `{"id":1,"ts":"2024-03-01T10:20:30.123456","tstz":"2024-03-01T08:20:30Z","d":"2024-03-01","t":"10:20:30.5","price":"12.34","big":"-12345678901234567890.12"}` + "\n" +
		`{"id":2,"ts":null,"tstz":null,"d":null,"t":null,"price":null,"big":null}` + "\n"
	if got := must(t, nil, "head", "-json", out); got != want {
		t.Fatalf("head:\n%s\nwant\n%s", got, want)
	}
	ins := must(t, nil, "inspect", out)
	for _, line := range []string{"TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)", "DECIMAL(30,2)", "2024-03-01T08:20:30Z  2024-03-01T08:20:30Z", "12.34  12.34"} {
		if !strings.Contains(ins, line) {
			t.Errorf("inspect does not show %q:\n%s", line, ins)
		}
	}
	for _, bad := range []string{"ts:timestamp[s]", "t:time[us, tz]", "p:decimal(40,2)", "p:decimal(5,6)", "d:date(1)"} {
		if _, errOut, code := rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "x"), "-schema", bad, csvPath); code != 2 || !strings.Contains(errOut, "-schema") {
			t.Errorf("-schema %s: exit %d, %s", bad, code, errOut)
		}
	}
}

// TestInferSchema: inspect prints the schema inferred from a text
// dataset's first records, and reshard -schema auto writes Parquet with
// it: integers, floats (an integer column with one float), bools, dates,
// timestamps with a zone, strings (an identifier with leading zeros
// stays text), nullability from empty fields and missing keys, lists
// from JSON arrays.
func TestInferSchema(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,name,score,ok,day,ts,zip,n\n"+
		"1,a,0.5,true,2024-01-02,2024-01-02T03:04:05Z,00501,3\n"+
		"2,,1,false,2024-01-03,,10001,4.5\n"), 0o644)
	const wantCSV = "-schema 'id:int64,name:string,score:float64,ok:bool,day:date,ts:timestamp[us, tz],zip:string,n:float64'"
	ins := must(t, nil, "inspect", csvPath)
	if !strings.Contains(ins, wantCSV) || !strings.Contains(ins, "name   string             nullable") {
		t.Fatalf("inspect of CSV:\n%s\nwant it to show %s", ins, wantCSV)
	}
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, "-schema", "auto", "-row-id-column", "", csvPath)
	want := `{"id":1,"name":"a","score":0.5,"ok":true,"day":"2024-01-02","ts":"2024-01-02T03:04:05Z","zip":"00501","n":3}` + "\n" +
		`{"id":2,"name":null,"score":1,"ok":false,"day":"2024-01-03","ts":null,"zip":"10001","n":4.5}` + "\n"
	if got := must(t, nil, "head", "-json", out); got != want {
		t.Fatalf("-schema auto output:\n%s\nwant\n%s", got, want)
	}
	jsonPath := filepath.Join(dir, "in.jsonl")
	os.WriteFile(jsonPath, []byte(`{"id":1,"tags":["a","b"],"x":1,"t":"10:00:00"}`+"\n"+`{"id":2,"tags":null,"x":2.5,"y":true}`+"\n"), 0o644)
	ins = must(t, nil, "inspect", jsonPath)
	if want := "-schema 'id:int64,tags:[]string,x:float64,t:time,y:bool'"; !strings.Contains(ins, want) || !strings.Contains(ins, "y     bool      nullable") {
		t.Fatalf("inspect of JSON Lines:\n%s\nwant it to show %s", ins, want)
	}
	gz := filepath.Join(dir, "bad", "a.jsonl.gz")
	os.MkdirAll(filepath.Dir(gz), 0o755)
	os.WriteFile(gz, []byte("id\n1\n"), 0o644)
	if _, errOut, code := rowflow(t, nil, "inspect", filepath.Dir(gz)); code != 1 || !strings.Contains(errOut, "a.jsonl.gz: gzip stream") {
		t.Fatalf("inspect of a damaged compressed file: exit %d, %s", code, errOut)
	}
	os.WriteFile(jsonPath, []byte(`{"id":1,"o":{"a":1}}`+"\n"), 0o644)
	if _, errOut, code := rowflow(t, nil, "inspect", jsonPath); code != 1 || !strings.Contains(errOut, `column "o": a JSON object cannot be said in -schema`) {
		t.Fatalf("inspect of a JSON object column: exit %d, %s", code, errOut)
	}
}
