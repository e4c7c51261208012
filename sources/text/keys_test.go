package text_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// keyed has required fields (A, B), optional ones and a Hive column.
type keyed struct {
	A    int64          `json:"a"`
	B    string         `json:"b"`
	P    *int64         `json:"p"`
	S    []string       `json:"s"`
	M    map[string]int `json:"m"`
	O    string         `json:"o,omitempty"`
	Lang string         `json:"lang"` // a Hive column
	Any  any            `json:"any"`
}

// readErr runs src to a count and returns its rows and error.
func readErr[T any](t *testing.T, src flow.Source[T]) (int64, error) {
	var n int64
	err := flow.From(src).To(sinks.Count[T](&n)).Run(t.Context())
	return n, err
}

// TestJSONDuplicateKeys: a line with a key twice, at any depth and
// however escaped, is a bad record naming the file, line and key, for
// structs and records alike: records kept the first value (and both
// names), structs the last. With SkipBadLines it is skipped.
func TestJSONDuplicateKeys(t *testing.T) {
	good := `{"a":1,"b":"x","any":{"a":2,"k":[{"a":1},{"a":2}]},"s":["a","a"]}` + "\n"
	for _, c := range []struct{ line, key string }{
		{`{"a":1,"b":"x","a":2}`, `"a"`},
		{`{"a":1,"b":"x","\u0061":2}`, `"a"`},
		{`{"a":1,"b":"x","any":{"k":1,"z":[],"k":2}}`, `"k"`},
		{`{"a":1,"b":"x","any":[{"q\"":1,"q\"":2}]}`, `"q\""`},
		{`{"a":1,"b":"x","m":{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":3}}`, `"k3"`},
	} {
		dir := filepath.Join(t.TempDir(), "lang=en")
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "d.jsonl"), []byte(good+c.line+"\n"+good), 0o644); err != nil {
			t.Fatal(err)
		}
		want := "lang=en/d.jsonl:2 (byte " + itoa(len(good)) + "): duplicate key " + c.key
		_, err1 := readErr(t, text.JSONL[keyed](filepath.Dir(dir)))
		_, err2 := readErr(t, text.JSONL[sources.Record](filepath.Dir(dir)))
		for _, err := range []error{err1, err2} {
			var le *text.LineError
			if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &le) {
				t.Errorf("%s: %v; want a LineError containing %q", c.line, err, want)
			}
		}
		var rep sources.SkipReport
		n, err := readErr(t, text.JSONL[sources.Record](filepath.Dir(dir), sources.SkipBad(&rep)))
		if err != nil || n != 2 || len(rep.Skipped) != 1 || rep.Skipped[0].Line != 2 {
			t.Errorf("%s with SkipBadLines: %d rows, %v, %+v", c.line, n, err, rep)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestJSONMissingFields: a line without a key for a field of T that is
// not optional is a bad record, unless AllowMissingFields; optional
// fields (pointers, slices, maps, interfaces, omitempty, Hive columns)
// may be missing, and keys match fields in any case, as encoding/json
// matches them. It decoded to zero values without a word.
func TestJSONMissingFields(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lang=en")
	os.MkdirAll(dir, 0o755)
	data := `{"a":1,"b":"x"}` + "\n" + `{"A":2,"B":"y"}` + "\n" + `{"a":3}` + "\n" + `{"b":"z","p":1}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "m.jsonl"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(dir)
	_, err := readErr(t, text.JSONL[keyed](root))
	if err == nil || !strings.Contains(err.Error(), `lang=en/m.jsonl:3 (byte 32): no key "b"`) {
		t.Fatalf("a line without b: %v", err)
	}
	var rep sources.SkipReport
	n, err := readErr(t, text.JSONL[keyed](root, sources.SkipBad(&rep)))
	if err != nil || n != 2 || len(rep.Skipped) != 2 || !strings.Contains(rep.Skipped[1].Err, `no key "a"`) {
		t.Fatalf("SkipBadLines: %d rows, %v, %+v", n, err, rep)
	}
	if n, err := readErr(t, text.JSONL[keyed](root, text.AllowMissingFields())); err != nil || n != 4 {
		t.Fatalf("AllowMissingFields: %d rows, %v", n, err)
	}
}

// TestCSVDuplicateHeader: a header that names a column twice fails the
// run naming the file and the column, for structs and records: structs
// read the first of the two. Header with a name twice is refused.
func TestCSVDuplicateHeader(t *testing.T) {
	type row struct {
		A string `csv:"a"`
		B string `csv:"b"`
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.csv"), []byte("\na,b,a\n1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `h.csv:2 (byte 1): duplicate column "a" in the header (columns 1 and 3)`
	_, err1 := readErr(t, text.CSV[row](dir))
	var rep sources.SkipReport
	_, err2 := readErr(t, text.CSV[sources.Record](dir, sources.SkipBad(&rep)))
	for _, err := range []error{err1, err2} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v; want an error containing %q", err, want)
		}
	}
	if _, err := readErr(t, text.CSV[sources.Record](dir, text.Header("x", "y", "x"))); err == nil || !strings.Contains(err.Error(), `"x" is given twice`) {
		t.Errorf("Header with a name twice: %v", err)
	}
}
