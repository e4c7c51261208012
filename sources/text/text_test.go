package text_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// Line is what the text tests decode.
type Line struct {
	ID    int64    `csv:"id" json:"id"`
	Name  string   `csv:"name" json:"name"`
	Score float64  `csv:"score" json:"score"`
	Ok    bool     `csv:"ok" json:"ok"`
	Opt   *int32   `csv:"opt" json:"opt"`
	Skip  string   `csv:"-" json:"-"`
	Lang  string   `csv:"lang" json:"lang,omitempty"` // a Hive column
	Tags  []string `csv:"-" json:"tags"`
}

// lineValues makes n lines whose names hold what splits CSV badly:
// delimiters, doubled quotes, \n and \r\n inside quoted fields.
func lineValues(n int) []Line {
	out := make([]Line, n)
	for i := range out {
		l := Line{ID: int64(i), Score: float64(i) / 3, Ok: i%2 == 0, Name: fmt.Sprintf("name %d", i)}
		switch i % 7 {
		case 1:
			l.Name = fmt.Sprintf("multi\nline %d\nwith \"quotes\", and commas", i)
		case 3:
			l.Name = fmt.Sprintf("crlf\r\nline %d", i)
		case 5:
			l.Name = strings.Repeat("long ", i%40) + "\"q\""
		}
		if i%3 != 0 {
			v := int32(i * 2)
			l.Opt = &v
		}
		l.Tags = []string{strconv.Itoa(i)}
		out[i] = l
	}
	return out
}

// writeCSV writes lines as CSV with a header.
func writeCSV(t testing.TB, path string, lines []Line) {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"id", "name", "score", "ok", "opt", "extra"})
	for _, l := range lines {
		opt := ""
		if l.Opt != nil {
			opt = strconv.Itoa(int(*l.Opt))
		}
		w.Write([]string{strconv.FormatInt(l.ID, 10), l.Name, strconv.FormatFloat(l.Score, 'g', -1, 64), strconv.FormatBool(l.Ok), opt, "x"})
	}
	w.Flush()
	writeFile(t, path, b.Bytes())
}

func writeJSONL(t testing.TB, path string, lines []Line) []byte {
	t.Helper()
	var b bytes.Buffer
	for i, l := range lines {
		l.Lang = ""
		js, _ := json.Marshal(l)
		b.Write(js)
		if i%5 == 4 {
			b.WriteString("\r\n\n") // a blank line after \r\n
		} else {
			b.WriteByte('\n')
		}
	}
	writeFile(t, path, b.Bytes())
	return b.Bytes()
}

// writeFile writes data to path, compressed as the extension says.
func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	var b bytes.Buffer
	var w io.WriteCloser
	switch filepath.Ext(path) {
	case ".gz":
		w = gzip.NewWriter(&b)
	case ".zst":
		w, _ = zstd.NewWriter(&b)
	case ".s2":
		w = s2.NewWriter(&b)
	}
	if w != nil {
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data = b.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readCSV reads a plain CSV file serially with encoding/csv: its header,
// and each record with its ordinal, called with fn.
func readCSV(t testing.TB, path string, fn func(rec []string, ord uint64)) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// lineStarts[i] is where line i+1 starts: a record starts where the
	// line of its first field does, after any blank lines.
	lineStarts := []int64{0}
	for i, c := range data {
		if c == '\n' {
			lineStarts = append(lineStarts, int64(i+1))
		}
	}
	r := csv.NewReader(bytes.NewReader(data))
	names, _ := r.Read()
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		line, _ := r.FieldPos(0)
		fn(rec, text.TextOrdinal(data, lineStarts[line-1]))
	}
}

// referenceCSV reads a plain CSV file serially with encoding/csv: the
// values and the IDs (byte offset of each record) the source must give.
func referenceCSV(t testing.TB, path, rel, lang string) []flow.Item[Line] {
	t.Helper()
	var out []flow.Item[Line]
	base := rowid.FromString(rel)
	readCSV(t, path, func(rec []string, ord uint64) {
		l := Line{Lang: lang}
		l.ID, _ = strconv.ParseInt(rec[0], 10, 64)
		l.Name = rec[1]
		l.Score, _ = strconv.ParseFloat(rec[2], 64)
		l.Ok, _ = strconv.ParseBool(rec[3])
		if rec[4] != "" {
			v, _ := strconv.Atoi(rec[4])
			v32 := int32(v)
			l.Opt = &v32
		}
		out = append(out, flow.Item[Line]{ID: rowid.Ordinal(ord).Combine(base), Value: l})
	})
	return out
}

// sameItems compares values and IDs, ignoring partition numbers.
func sameItems(t *testing.T, what string, got, want []flow.Item[Line]) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || fmt.Sprint(g.Value.ID, g.Value.Name, g.Value.Score, g.Value.Ok, deref(g.Value.Opt), g.Value.Lang) !=
			fmt.Sprint(w.Value.ID, w.Value.Name, w.Value.Score, w.Value.Ok, deref(w.Value.Opt), w.Value.Lang) {
			t.Fatalf("%s: item %d is %v %+v, want %v %+v", what, i, g.ID, g.Value, w.ID, w.Value)
		}
	}
}

func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestCSVSerialEqualsParallel: byte ranges cut anywhere — mid-line, inside
// quoted fields that hold newlines — and every parallelism gives the
// serial read of encoding/csv, values, IDs and order.
func TestCSVSerialEqualsParallel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lang=zz", "a.csv")
	writeCSV(t, path, lineValues(3000))
	want := referenceCSV(t, path, "lang=zz/a.csv", "zz")
	data, _ := os.ReadFile(path)
	for _, size := range []int64{97, 1000, 1 << 20} {
		var serial []flow.Item[Line]
		for _, par := range []int{1, 2, 4, 8} {
			got := testutil.Items[Line](t, flow.From(text.CSV[Line](dir, text.PartitionBytes(size))).Parallel(par))
			sameItems(t, fmt.Sprintf("PartitionBytes(%d) Parallel(%d)", size, par), got, want)
			if par == 1 {
				serial = got
				if parts := batches(got); size < 1000 && parts < int64(len(data))/size/2 {
					t.Fatalf("PartitionBytes(%d): %d partitions for %d bytes", size, parts, len(data))
				}
			} else if !slices.EqualFunc(got, serial, func(a, b flow.Item[Line]) bool { return a.Part == b.Part && a.ID == b.ID }) {
				t.Fatalf("PartitionBytes(%d) Parallel(%d): batches differ from the serial run", size, par)
			}
		}
	}
}

// batches counts the distinct batches of items.
func batches[T any](items []flow.Item[T]) int64 {
	n, last := int64(0), int64(-1)
	for _, it := range items {
		if it.Part != last {
			n, last = n+1, it.Part
		}
	}
	return n
}

// TestJSONLSerialEqualsParallel, with Hive columns, compressed files among
// plain ones and a directory search.
func TestJSONLSerialEqualsParallel(t *testing.T) {
	dir := t.TempDir()
	lines := lineValues(2000)
	names := []string{"lang=de/a.jsonl", "lang=en/b.jsonl.gz", "lang=en/c.ndjson", "lang=fr/d.jsonl.zst", "lang=fr/e.jsonl.s2"}
	var want []flow.Item[Line]
	for k, name := range names {
		part := lines[k*400 : (k+1)*400]
		data := writeJSONL(t, filepath.Join(dir, name), part)
		lang := strings.TrimPrefix(filepath.Dir(name), "lang=")
		// The offsets of the lines the writer wrote, decompressed.
		off := int64(0)
		for i, l := range part {
			js, _ := json.Marshal(l)
			l.Lang = lang
			want = append(want, flow.Item[Line]{ID: rowid.Ordinal(text.TextOrdinal(data, off)).Combine(rowid.FromString(name)), Value: l})
			off += int64(len(js)) + 1
			if i%5 == 4 {
				off += 2
			}
		}
	}
	writeFile(t, filepath.Join(dir, "_ignored.jsonl"), []byte("not json\n"))
	for _, par := range []int{1, 2, 4, 8} {
		got := testutil.Items[Line](t, flow.From(text.JSONL[Line](dir, text.PartitionBytes(500))).Parallel(par))
		sameItems(t, fmt.Sprintf("Parallel(%d)", par), got, want)
		for i := range got {
			if !slices.Equal(got[i].Value.Tags, want[i].Value.Tags) {
				t.Fatalf("item %d: tags %q, want %q", i, got[i].Value.Tags, want[i].Value.Tags)
			}
		}
	}
	en := testutil.Items[Line](t, flow.From(text.JSONL[Line](dir, sources.Where(sources.Eq("lang", "en")))).Parallel(2))
	sameItems(t, "Where lang=en", en, want[400:1200])
}

// TestCSVCompressed: the same CSV compressed three ways reads as the
// plain file does, one partition per file, its IDs the offsets of the
// decompressed records; Compression reads a file whatever its name.
func TestCSVCompressed(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "lang=xx", "plain.csv")
	writeCSV(t, plain, lineValues(500))
	data, _ := os.ReadFile(plain)
	for _, c := range []struct{ ext, name string }{{".gz", "gzip"}, {".zst", "zstd"}, {".s2", "s2"}} {
		rel := "lang=xx/part.csv" + c.ext
		writeFile(t, filepath.Join(dir, "h", filepath.FromSlash(rel)), data)
		want := referenceCSV(t, plain, rel, "xx")
		got := testutil.Items[Line](t, flow.From(text.CSV[Line](filepath.Join(dir, "h"), text.PartitionBytes(100))).Parallel(4))
		sameItems(t, c.ext, got, want)
		if b := batches(got); b != 1 {
			t.Errorf("%s: %d partitions, want 1 for a compressed file", c.ext, b)
		}
		odd := filepath.Join(dir, "h", "lang=xx", "odd.bin")
		os.Rename(filepath.Join(dir, "h", filepath.FromSlash(rel)), odd)
		got = testutil.Items[Line](t, flow.From(text.CSV[Line](filepath.Join(dir, "h"), sources.Files(odd), text.Compression(c.name))).Parallel(2))
		sameItems(t, "Compression("+c.name+")", got, referenceCSV(t, plain, "lang=xx/odd.bin", "xx"))
		os.RemoveAll(filepath.Join(dir, "h"))
	}
}

// TestCSVAsRecords reads schema-less records with the header's names.
func TestCSVAsRecords(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "k=1", "a.csv"), []byte("x,y\n1,\"a,b\"\n2,c\n"))
	got := testutil.Items[sources.Record](t, flow.From(text.CSV[sources.Record](dir)))
	if len(got) != 2 || fmt.Sprint(got[0].Value.Names, got[0].Value.Values, got[1].Value.Values) != "[x y k] [1 a,b 1] [2 c 1]" {
		t.Fatalf("got %+v", got)
	}
	semi := t.TempDir()
	writeFile(t, filepath.Join(semi, "a.csv"), []byte("x;y,z\n1;2\n"))
	hdr := testutil.Items[sources.Record](t, flow.From(text.CSV[sources.Record](semi, text.Header("p", "q"), text.Comma(';'))))
	if len(hdr) != 2 || fmt.Sprint(hdr[0].Value.Names, hdr[0].Value.Values, hdr[1].Value.Values) != "[p q] [x y,z] [1 2]" {
		t.Fatalf("Header, Comma: got %+v", hdr)
	}
}

// TestJSONLAsRecords keeps keys in line order and numbers exact.
func TestJSONLAsRecords(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), []byte(`{"b": 9007199254740993, "a": [1, "x"], "c": null}`+"\n"+`{"z": {"k": true}}`))
	got := testutil.Items[sources.Record](t, flow.From(text.JSONL[sources.Record](dir)))
	if len(got) != 2 || fmt.Sprint(got[0].Value.Names, got[0].Value.Values, got[1].Value.Names, got[1].Value.Values) !=
		"[b a c] [9007199254740993 [1 x] <nil>] [z] [map[k:true]]" {
		t.Fatalf("got %+v", got)
	}
}

// TestJSONLBlankIsJSONSpace: a line of JSON's white space (space, tab,
// "\r") is blank and skipped; a line of another Unicode space, or a value
// after one, is not JSON and is a bad line, as encoding/json says.
func TestJSONLBlankIsJSONSpace(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), []byte("{\"a\": 1}\n \t\r\n\u00a0\n\u0085{\"a\": 2}\n{\"a\": 3}\n"))
	var rep sources.SkipReport
	got := testutil.Items[sources.Record](t, flow.From(text.JSONL[sources.Record](dir, sources.SkipBad(&rep))))
	var lines []int64
	for _, s := range rep.Skipped {
		lines = append(lines, s.Line)
	}
	if len(got) != 2 || fmt.Sprint(got[0].Value.Values, got[1].Value.Values) != "[1] [3]" || !slices.Equal(lines, []int64{3, 4}) {
		t.Fatalf("got %+v, skipped lines %v; want the values 1 and 3, and lines 3 and 4 skipped", got, lines)
	}
}

// TestJSONLNonFiniteFloats checks that JSONL reads the strings "NaN",
// "+Inf" and "-Inf", which shards.JSONL writes for the floats JSON
// has no number for, into float fields at any depth, with the rest of the
// line as encoding/json reads it; that another string in a float field is
// still a bad line; and that records keep the strings as strings.
func TestJSONLNonFiniteFloats(t *testing.T) {
	type point struct {
		X float64 `json:"x"`
	}
	type row struct {
		ID  int64      `json:"id"`
		F   float32    `json:"f"`
		P   *float64   `json:"p"`
		L   []float64  `json:"l"`
		Pts []point    `json:"pts"`
		Arr [1]float64 `json:"arr"`
		S   string     `json:"s"`
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), []byte(`{"id":1,"f":1.5,"l":[2],"s":"NaN"}`+"\n"+
		`{"id":2,"f":"-Inf","p":"+Inf","l":["NaN",3],"pts":[{"x":"-Inf"}],"arr":["+Inf"],"s":"x"}`+"\n"))
	got := testutil.Items[row](t, flow.From(text.JSONL[row](dir, text.AllowMissingFields())))
	if len(got) != 2 {
		t.Fatalf("read %d rows, want 2", len(got))
	}
	a, b := got[0].Value, got[1].Value
	inf := math.Inf(1)
	if a.ID != 1 || a.F != 1.5 || a.P != nil || !slices.Equal(a.L, []float64{2}) || a.S != "NaN" {
		t.Errorf("row 1: %+v", a)
	}
	if b.ID != 2 || b.F != float32(-inf) || b.P == nil || *b.P != inf || len(b.L) != 2 || !math.IsNaN(b.L[0]) || b.L[1] != 3 ||
		len(b.Pts) != 1 || b.Pts[0].X != -inf || b.Arr[0] != inf || b.S != "x" {
		t.Errorf("row 2: %+v", b)
	}

	recs := testutil.Items[sources.Record](t, flow.From(text.JSONL[sources.Record](dir)))
	if v, _ := recs[1].Value.Get("f"); v != "-Inf" {
		t.Errorf("JSONL[sources.Record]: f is %#v, want the string", v)
	}

	writeFile(t, filepath.Join(dir, "b.jsonl"), []byte(`{"id":3,"f":"nan"}`+"\n"))
	var err error
	for _, e := range flow.Items[row](t.Context(), flow.From(text.JSONL[row](filepath.Join(dir, "b.jsonl")))) {
		if e != nil {
			err = e
			break
		}
	}
	var le *text.LineError
	if !errors.As(err, &le) || le.Line != 1 || !strings.Contains(err.Error(), "cannot unmarshal string") {
		t.Errorf("a float field of \"nan\": %v, want a *text.LineError of line 1", err)
	}
}

// TestTextBadInput: every kind of bad record and stream fails with the
// file, the line and the byte offset, at every parallelism; SkipBadLines
// skips the bad records and reports them, the same way at every
// parallelism.
func TestTextBadInput(t *testing.T) {
	dir := t.TempDir()
	good := strings.Repeat("1,a,0.5,true,,x\n", 50) // lines 2-51, 16 bytes each
	hdr := "id,name,score,ok,opt,extra\n"           // 27 bytes
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	zs := func(s string) []byte {
		var b bytes.Buffer
		w, _ := zstd.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	tests := []struct {
		name, file string
		data       []byte
		err        string
	}{
		{"bare quote", "q.csv", []byte(hdr + good + "2,a\"b,1,true,,x\n" + good), `q.csv:52 (byte 827): column 4: bare " in non-quoted-field`},
		{"unterminated quote", "u.csv", []byte(hdr + good + "2,\"ab,1,true,,x\n" + good), `u.csv:52 (byte 827): line 102, column 17: extraneous or missing " in quoted-field`},
		{"field count", "n.csv", []byte(hdr + good + "2,a,1\n" + good), "n.csv:52 (byte 827): wrong number of fields"},
		{"bad int", "i.csv", []byte(hdr + good + "x2,a,1,true,,x\n" + good), `i.csv:52 (byte 827): column id: "x2" into field ID: invalid syntax`},
		{"bad bool", "b.csv", []byte(hdr + good + "2,a,1,maybe,,x\n" + good), `b.csv:52 (byte 827): column ok: "maybe" into field Ok: invalid syntax`},
		{"missing column", "m.csv", []byte("id,name\n1,a\n"), `m.csv: no column "score" for field Score`},
		{"invalid json", "j.jsonl", []byte(strings.Repeat(`{"id":1}`+"\n", 30) + "{\"id\":\n" + `{"id":2}` + "\n"), "j.jsonl:31 (byte 270): unexpected end of JSON input"},
		{"json type", "t.jsonl", []byte(strings.Repeat(`{"id":1}`+"\n", 30) + `{"id":"x"}` + "\n"), "t.jsonl:31 (byte 270): json: cannot unmarshal string into Go struct field Line.id of type int64"},
		{"truncated gzip", "g.jsonl.gz", half(gz(strings.Repeat(`{"id":1}`+"\n", 5000))), "g.jsonl.gz:"},
		{"truncated gzip csv", "g.csv.gz", half(gz(hdr + strings.Repeat(good, 100))), "g.csv.gz:"},
		{"corrupt zstd", "z.jsonl.zst", corrupt(zs(strings.Repeat(`{"id":1,"name":"abcdefgh"}`+"\n", 5000))), "z.jsonl.zst:"},
	}
	for _, tt := range tests {
		sub := filepath.Join(dir, tt.name)
		if err := os.MkdirAll(filepath.Join(sub, "lang=q"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "lang=q", tt.file), tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, par := range []int{1, 3} {
			var src flow.Source[Line]
			if strings.Contains(tt.file, ".csv") {
				src = text.CSV[Line](sub, text.PartitionBytes(64))
			} else {
				src = text.JSONL[Line](sub, text.PartitionBytes(64), text.AllowMissingFields())
			}
			var n int
			var err error
			for _, e := range flow.Items[Line](t.Context(), flow.From(src).Parallel(par)) {
				if e != nil {
					err = e
					break
				}
				n++
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s, Parallel(%d): %v; want an error containing %q", tt.name, par, err, tt.err)
			}
			var le *text.LineError
			if strings.HasSuffix(tt.err, ":") && (!errors.As(err, &le) || le.Line < 1) {
				t.Errorf("%s: %v is not a LineError with a line", tt.name, err)
			}
		}
	}
}

func half(b []byte) []byte { return b[:len(b)/2] }

// corrupt flips bytes in the middle of a compressed stream.
func corrupt(b []byte) []byte {
	b = slices.Clone(b)
	for i := len(b) / 2; i < len(b)/2+16; i++ {
		b[i] ^= 0x5a
	}
	return b
}

// TestSkipBadLines: bad records are skipped and reported with the same
// lines and offsets at every parallelism; the good ones all arrive.
func TestSkipBadLines(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,name,score,ok,opt,extra\n")
	for i := range 400 {
		switch i % 37 {
		case 5:
			b.WriteString("1,2\n")
		case 11:
			fmt.Fprintf(&b, "%d,\"multi\nline\",x,true,,x\n", i)
		default:
			fmt.Fprintf(&b, "%d,n,1,true,,x\n", i)
		}
	}
	writeFile(t, filepath.Join(dir, "lang=q", "a.csv"), []byte(b.String()))
	var first sources.SkipReport
	var firstItems []flow.Item[Line]
	for _, par := range []int{1, 2, 4} {
		var rep sources.SkipReport
		got := testutil.Items[Line](t, flow.From(text.CSV[Line](dir, text.PartitionBytes(200), sources.SkipBad(&rep))).Parallel(par))
		if len(got) != 400-2*11 || len(rep.Skipped) != 2*11 {
			t.Fatalf("Parallel(%d): %d rows and %d bad lines, want %d and %d", par, len(got), len(rep.Skipped), 400-22, 22)
		}
		if par == 1 {
			first, firstItems = rep, got
			if l := rep.Skipped[0]; l.Path != "lang=q/a.csv" || l.Line != 7 || !strings.Contains(l.Err, "wrong number of fields") {
				t.Fatalf("first bad line %+v, want lang=q/a.csv line 7, wrong number of fields", l)
			}
			if l := rep.Skipped[1]; l.Line != 13 || !strings.Contains(l.Err, `"x" into field Score`) {
				t.Fatalf("second bad line %+v, want line 13 with score x", l)
			}
			continue
		}
		if fmt.Sprint(rep) != fmt.Sprint(first) {
			t.Fatalf("Parallel(%d): report %+v, want %+v", par, rep, first)
		}
		if !slices.EqualFunc(got, firstItems, func(a, b flow.Item[Line]) bool { return a.ID == b.ID && a.Value.ID == b.Value.ID }) {
			t.Fatalf("Parallel(%d): rows differ from the serial run", par)
		}
	}
}

// TestTextRanksAndEpochs: ranks split the byte ranges between processes,
// their union is the whole file; Epochs repeats it with new batches.
func TestTextRanksAndEpochs(t *testing.T) {
	dir := t.TempDir()
	writeJSONL(t, filepath.Join(dir, "a.jsonl"), lineValues(1000))
	all := testutil.Items[Line](t, flow.From(text.JSONL[Line](dir, text.PartitionBytes(2000))))
	var union []flow.Item[Line]
	for rank := range 3 {
		got := testutil.Items[Line](t, flow.From(text.JSONL[Line](dir, text.PartitionBytes(2000))).Parallel(2).WithRank(rank, 3))
		if len(got) == 0 || len(got) == len(all) {
			t.Fatalf("rank %d of 3: %d rows of %d", rank, len(got), len(all))
		}
		union = append(union, got...)
	}
	slices.SortStableFunc(union, func(a, b flow.Item[Line]) int { return int(a.Part - b.Part) })
	if !testutil.SameRows(union, all) {
		t.Fatalf("the ranks' union (%d rows) is not the file (%d rows) in order", len(union), len(all))
	}

	twice := testutil.Items[Line](t, flow.From(text.JSONL[Line](dir, text.PartitionBytes(2000))).Epochs(2).Parallel(3))
	sameItems(t, "epoch 0", twice[:len(all)], all)
	sameItems(t, "epoch 1", twice[len(all):], all)
	if epoch.Of(twice[len(all)].Part) != 1 || twice[len(all)].Part <= twice[len(all)-1].Part {
		t.Fatalf("epoch 1 starts at partition %d after %d", twice[len(all)].Part, twice[len(all)-1].Part)
	}
}

// TestEndlessRecord: a small gzip stream of one 70 MiB line fails with
// the record limit, for CSV and JSON Lines, instead of being held whole.
func TestEndlessRecord(t *testing.T) {
	dir := t.TempDir()
	endless := func(head string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(head))
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range 70 {
			w.Write(chunk)
		}
		w.Close()
		return b.Bytes()
	}
	for _, c := range []struct{ name, head string }{{"x.csv.gz", "id,name\n1,"}, {"x.jsonl.gz", `{"a": "`}} {
		sub := filepath.Join(dir, c.name+".d")
		os.MkdirAll(sub, 0o755)
		data := endless(c.head)
		os.WriteFile(filepath.Join(sub, c.name), data, 0o644)
		var err error
		if strings.Contains(c.name, "csv") {
			err = flow.From(text.CSV[sources.Record](sub)).To(sinks.Count[sources.Record](new(int64))).Run(t.Context())
		} else {
			err = flow.From(text.JSONL[sources.Record](sub)).To(sinks.Count[sources.Record](new(int64))).Run(t.Context())
		}
		if err == nil || !strings.Contains(err.Error(), "a record longer than 67108864 bytes") || !strings.Contains(err.Error(), c.name+":") {
			t.Errorf("%s (%d bytes compressed): %v", c.name, len(data), err)
		}
	}
}
