package main_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// head's table has a column for every name of the rows it shows, in the
// order the names first come; a row's value is under its own name, and a
// name a row lacks is blank.
func TestHeadTableColumnsOfEveryRow(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"v.jsonl": `{"a":1,"b":2}` + "\n" + `{"b":3,"c":4}` + "\n" + `{"c":"x","a":5}` + "\n"})
	out := must(t, nil, "head", filepath.Join(dir, "v.jsonl"))
	var lines []string
	for l := range strings.Lines(out) {
		lines = append(lines, strings.TrimRight(l, " \n"))
	}
	want := []string{"a  b  c", "1  2", "   3  4", "5     x"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("head printed\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// head -json writes NaN and infinite floats, which JSON has no numbers
// for, as the strings "NaN", "+Inf" and "-Inf", in lists too; the table
// shows them the same way.
func TestHeadJSONNonFiniteFloats(t *testing.T) {
	type row struct {
		X float64   `parquet:"x"`
		Y float32   `parquet:"y"`
		V []float64 `parquet:"v,list"`
	}
	path := filepath.Join(t.TempDir(), "f.parquet")
	testutil.WriteParquet(t, path, []row{
		{X: 1.5, Y: 2, V: []float64{0.25}},
		{X: math.NaN(), Y: float32(math.Inf(-1)), V: []float64{math.Inf(1), -3}},
	}, 2)
	out, errOut, code := rowflow(t, nil, "head", "-json", path)
	want := `{"x":1.5,"y":2,"v.list.element":[0.25]}` + "\n" + `{"x":"NaN","y":"-Inf","v.list.element":["+Inf",-3]}` + "\n"
	if code != 0 || out != want {
		t.Errorf("head -json: exit %d, %s\n%s\nwant\n%s", code, errOut, out, want)
	}
	out = must(t, nil, "head", path)
	if lines := strings.Split(out, "\n"); len(lines) < 3 || strings.Join(strings.Fields(lines[2]), " ") != "NaN -Inf [+Inf -3]" {
		t.Errorf("head table:\n%s", out)
	}
}

// TestHeadStopsAtItsRows: head -n 2 of a file whose line 1,000 is bad
// shows the first two rows: it reads no further than they are (it failed
// on the bad line, which the same chunk held).
func TestHeadStopsAtItsRows(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 2000 {
		if i == 999 {
			b.WriteString("{not json\n")
			continue
		}
		fmt.Fprintf(&b, "{\"id\":%d}\n", i)
	}
	writeFiles(t, dir, map[string]string{"a.jsonl": b.String()})
	out := must(t, nil, "head", "-n", "2", "-json", dir)
	if out != "{\"id\":0}\n{\"id\":1}\n" {
		t.Fatalf("head -n 2: %q", out)
	}
	if _, errOut, code := rowflow(t, nil, "head", "-n", "1500", dir); code != 1 || !strings.Contains(errOut, "a.jsonl") {
		t.Fatalf("head -n 1500 past the bad line: exit %d, %q", code, errOut)
	}
}
