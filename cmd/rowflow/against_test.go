package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// verify -against finds the Parquet and the JSON Lines output of one
// input equal although they spell a list column (tokens.list.element in
// Parquet, tokens in JSON Lines from JSON Lines) and a bytes column
// (base64 in JSON Lines from Parquet) differently, and still finds a value
// that differs.
func TestVerifyAgainstListsAndBytes(t *testing.T) {
	type doc struct {
		ID     int64   `parquet:"id"`
		Tokens []int32 `parquet:"tokens,list"`
		Blob   []byte  `parquet:"blob,optional"`
	}
	in := t.TempDir()
	testutil.WriteParquet(t, filepath.Join(in, "x.parquet"), []doc{
		{ID: 1, Tokens: []int32{3, 4}, Blob: []byte("hello")},
		{ID: 2, Blob: []byte{0, 0xff, 'a'}},
		{ID: 3, Tokens: []int32{7}},
	}, 2)
	out := t.TempDir()
	p1, j1 := filepath.Join(out, "p1"), filepath.Join(out, "j1")
	must(t, nil, "reshard", "-out", p1, in)
	must(t, nil, "reshard", "-out", j1, "-format", "jsonl", "-compression", "none", in)
	got := must(t, nil, "verify", "-against", p1, j1)
	if !strings.Contains(got, "column blob of "+j1+" is base64") || !strings.Contains(got, "ok: "+j1+" and "+p1+" hold the same 3 rows") {
		t.Errorf("verify -against of Parquet and JSON Lines output:\n%s", got)
	}

	// JSON Lines input: the key order, a missing key, an empty list and
	// text in a bytes column, as -schema reads them.
	text := filepath.Join(t.TempDir(), "in.jsonl")
	writeFiles(t, filepath.Dir(text), map[string]string{"in.jsonl": `{"blob":"abcd","id":1,"tokens":[3,4]}` + "\n" + `{"id":2,"tokens":[]}` + "\n" + `{"id":3,"tokens":null,"blob":"two words"}` + "\n"})
	p2, j2 := filepath.Join(out, "p2"), filepath.Join(out, "j2")
	must(t, nil, "reshard", "-out", p2, "-schema", "id:int64,tokens:[]int32,blob:bytes", text)
	must(t, nil, "reshard", "-out", j2, "-format", "jsonl", text)
	if got := must(t, nil, "verify", "-against", p2, j2); got != "ok: "+j2+" and "+p2+" hold the same 3 rows by row ID\n" {
		t.Errorf("verify -against of the outputs of JSON Lines input:\n%s", got)
	}

	// A value that differs is found: in the bytes column (other base64),
	// and in the list column.
	file := filepath.Join(j1, "part-00000-00000.jsonl")
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, msg string }{
		{`"blob":"aGVsbG8="`, `"blob":"aGVsbHA="`, `the first has "hellp", the second has "hello"`},
		{`[3,4]`, `[3,5]`, `the first has "[3 5]", the second has "[3 4]"`},
	} {
		changed := strings.Replace(string(body), c.old, c.new, 1)
		if changed == string(body) {
			t.Fatalf("%s holds no %s:\n%s", file, c.old, body)
		}
		if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := rowflow(t, nil, "verify", "-against", p1, j1)
		if code != 1 || !strings.Contains(errOut, "differs") || !strings.Contains(errOut, c.msg) {
			t.Errorf("verify -against with %s changed to %s: exit %d, %s", c.old, c.new, code, errOut)
		}
	}
}

// verify -against finds a Parquet output and its JSON Lines reshard equal
// whatever their floats, which the two spell differently: JSON writes
// 0.00001, 46577363.5 and 1000000 where the shortest text of the float
// is 1e-05, 4.65773635e+07 and 1e+06 (float32 in a list too).
func TestVerifyAgainstFloatSpellings(t *testing.T) {
	type row struct {
		ID    int64     `parquet:"id"`
		Score float64   `parquet:"score"`
		W     []float32 `parquet:"w,list"`
	}
	in := t.TempDir()
	testutil.WriteParquet(t, filepath.Join(in, "x.parquet"), []row{
		{ID: 1, Score: 46577363.5, W: []float32{1e6, 2.5e-6}},
		{ID: 2, Score: 0.00001},
		{ID: 3, Score: 1e-7, W: []float32{1e22}},
		{ID: 4, Score: 46577364, W: []float32{-0.5}},
		{ID: 5, Score: 1.0143625371538643e-05},
	}, 2)
	out := t.TempDir()
	p, j := filepath.Join(out, "p"), filepath.Join(out, "j")
	must(t, nil, "reshard", "-out", p, in)
	must(t, nil, "reshard", "-out", j, "-format", "jsonl", "-compression", "none", p)
	if got := must(t, nil, "verify", "-against", j, p); got != "ok: "+p+" and "+j+" hold the same 5 rows by row ID\n" {
		t.Errorf("verify -against of Parquet output and its JSON Lines reshard:\n%s", got)
	}
	// A float that differs is still found.
	file := filepath.Join(j, "part-00000-00000.jsonl")
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(body), `"score":0.00001,`, `"score":0.000011,`, 1)
	if changed == string(body) {
		t.Fatalf("%s holds no score 0.00001:\n%s", file, body)
	}
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := rowflow(t, nil, "verify", "-against", j, p); code != 1 || !strings.Contains(errOut, `the first has "1e-05", the second has "1.1e-05"`) {
		t.Errorf("verify -against with a float changed: exit %d, %s", code, errOut)
	}
}
