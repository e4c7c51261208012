package text_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

func readValues[T any](t *testing.T, src flow.Source[T]) ([]T, error) {
	t.Helper()
	var out []T
	for v, err := range flow.Values[T](t.Context(), flow.From(src)) {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

type nullRow struct {
	ID   int64   `csv:"id" json:"id"`
	Name *string `csv:"name" json:"name"`
	N    *int64  `csv:"n" json:"n"`
	Text string  `csv:"text" json:"text"`
	Lang *string `csv:"lang" json:"lang"`
}

// TestNullFields: an empty CSV field is null in records and in pointer
// fields (NullString's default, as DuckDB and pandas read it), and text
// as it is in a string field; NullString names another spelling, after
// which the empty field is the empty string; Hive's default partition is
// null in records and pointer fields of CSV and JSON Lines alike.
func TestNullFields(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"lang=en", "lang=__HIVE_DEFAULT_PARTITION__"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "lang=en", "a.csv"), []byte("id,name,n,text\n1,,,\n2,NA,NA,NA\n"), 0o644)
	os.WriteFile(filepath.Join(root, "lang=__HIVE_DEFAULT_PARTITION__", "b.csv"), []byte("id,name,n,text\n3,c,7,x\n"), 0o644)
	s := func(v string) *string { return &v }
	i := func(v int64) *int64 { return &v }

	recs, err := readValues(t, text.CSV[sources.Record](root))
	if err != nil {
		t.Fatal(err)
	}
	// Files in path order: the default partition's directory sorts first.
	want := [][]any{{"3", "c", "7", "x", nil}, {"1", nil, nil, nil, "en"}, {"2", "NA", "NA", "NA", "en"}}
	for k, r := range recs {
		if !reflect.DeepEqual(r.Values, want[k]) {
			t.Errorf("record %d: %#v, want %#v", k, r.Values, want[k])
		}
	}

	rows, err := readValues(t, text.CSV[nullRow](root, text.NullString("NA")))
	if err == nil || !strings.Contains(err.Error(), `column n: "" into field N`) {
		t.Fatalf("NullString(\"NA\"): an empty field in a *int64 is not null, and must fail to parse: %v (%+v)", err, rows)
	}
	os.WriteFile(filepath.Join(root, "lang=en", "a.csv"), []byte("id,name,n,text\n1,,NA,\n2,NA,NA,NA\n"), 0o644)
	rows, err = readValues(t, text.CSV[nullRow](root, text.NullString("NA")))
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []nullRow{
		{ID: 3, Name: s("c"), N: i(7), Text: "x"},
		{ID: 1, Name: s(""), Lang: s("en")},
		{ID: 2, Text: "NA", Lang: s("en")},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("NullString(\"NA\"):\n%s\nwant\n%s", show(rows), show(wantRows))
	}
	recs, err = readValues(t, text.CSV[sources.Record](root, text.NullString("NA")))
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[1].Values; !reflect.DeepEqual(got, []any{"1", "", nil, "", "en"}) {
		t.Errorf("NullString(\"NA\") record: %#v", got)
	}

	jroot := t.TempDir()
	os.MkdirAll(filepath.Join(jroot, "lang=__HIVE_DEFAULT_PARTITION__"), 0o755)
	os.WriteFile(filepath.Join(jroot, "lang=__HIVE_DEFAULT_PARTITION__", "a.jsonl"), []byte(`{"id":1,"name":null,"text":""}`+"\n"), 0o644)
	jrecs, err := readValues(t, text.JSONL[sources.Record](jroot))
	if err != nil {
		t.Fatal(err)
	}
	if got := jrecs[0].Values; !reflect.DeepEqual(got, []any{json.Number("1"), nil, "", nil}) {
		t.Errorf("JSON Lines record: %#v", got)
	}
	jrows, err := readValues(t, text.JSONL[nullRow](jroot, text.AllowMissingFields()))
	if err != nil {
		t.Fatal(err)
	}
	if want := []nullRow{{ID: 1}}; !reflect.DeepEqual(jrows, want) {
		t.Errorf("JSON Lines rows: %s, want %s", show(jrows), show(want))
	}
}

func show(rows []nullRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "{id=%d name=%s n=%s text=%q lang=%s} ", r.ID, derefOr(r.Name), derefOr(r.N), r.Text, derefOr(r.Lang))
	}
	return b.String()
}

func derefOr[V any](p *V) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprintf("&%v", *p)
}

type timeCSV struct {
	ID int64      `csv:"id"`
	At time.Time  `csv:"at"`
	Op *time.Time `csv:"op"`
}

// TestCSVTimeFields: CSV fields parse into time.Time: an instant with a
// zone, at its offset (as encoding/json reads it), a wall clock (as UTC)
// without, a date at midnight, an empty field null in a pointer; other
// text is a bad record naming the column.
func TestCSVTimeFields(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	os.WriteFile(path, []byte("id,at,op\n1,2024-03-01T10:20:30.5+02:00,2024-03-01\n2,2024-03-01 10:20:30,\n"), 0o644)
	rows, err := readValues(t, text.CSV[timeCSV](path))
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	want := []timeCSV{
		{ID: 1, At: time.Date(2024, 3, 1, 10, 20, 30, 5e8, time.FixedZone("", 2*3600)), Op: &day},
		{ID: 2, At: time.Date(2024, 3, 1, 10, 20, 30, 0, time.UTC)},
	}
	same := func(a, b time.Time) bool {
		_, oa := a.Zone()
		_, ob := b.Zone()
		return a.Equal(b) && oa == ob
	}
	if len(rows) != 2 || !same(rows[0].At, want[0].At) || !same(rows[1].At, want[1].At) || rows[0].At.Location() == time.UTC ||
		rows[1].At.Location() != time.UTC || rows[0].Op == nil || !same(*rows[0].Op, day) || rows[1].Op != nil {
		t.Fatalf("%+v, want %+v", rows, want)
	}
	os.WriteFile(path, []byte("id,at,op\n1,yesterday,\n"), 0o644)
	if _, err := readValues(t, text.CSV[timeCSV](path)); err == nil || !strings.Contains(err.Error(), "column at") || !strings.Contains(err.Error(), "is not a timestamp or a date") {
		t.Fatalf("a bad time: %v", err)
	}
}
