package shards_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// note is a row with text that CSV must quote and values that must
// round-trip exactly.
type note struct {
	ID    int64   `json:"id" csv:"id"`
	Text  string  `json:"text" csv:"text"`
	Score float64 `json:"score" csv:"score"`
	Lang  string  `json:"lang" csv:"lang"`
	Ok    bool    `json:"ok" csv:"ok"`
	Count *int32  `json:"count" csv:"count"`
}

func notes(n int) []note {
	texts := []string{"plain", "a, comma", `a "quote"`, "two\nlines", "", "üñí"}
	out := make([]note, n)
	for i := range out {
		out[i] = note{ID: int64(i), Text: texts[i%len(texts)], Score: float64(i) / 7, Lang: []string{"en", "de"}[i%2], Ok: i%3 == 0}
		if i%4 != 0 {
			c := int32(i * 3)
			out[i].Count = &c
		}
	}
	return out
}

func writeText(t *testing.T, format string, par int, opts ...shards.Option) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	p := flow.From(sources.Slice(notes(3000), sources.PartitionItems(250))).
		Via(operators.Map(func(n note) (note, error) { return n, nil })).Parallel(par)
	sink := shards.JSONL[note](dir, opts...)
	if format == "csv" {
		sink = shards.CSV[note](dir, opts...)
	}
	if err := p.To(sink).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTextShardsRoundTrip(t *testing.T) {
	want := notes(3000)
	for _, format := range []string{"jsonl", "csv"} {
		for _, comp := range []string{"none", "gzip", "zstd", "s2"} {
			t.Run(format+"/"+comp, func(t *testing.T) {
				opts := []shards.Option{shards.RowsPerFile(700), shards.Writers(3), shards.Compression(comp)}
				dir := writeText(t, format, 1, opts...)
				got4 := readTree(t, writeText(t, format, 4, opts...))
				got1 := readTree(t, dir)
				if len(got1) != 7 || len(got1) != len(got4) { // 5 data files of ≤700 rows over 3 writers, and the manifest
					t.Fatalf("%d files at parallelism 1, %d at 4", len(got1), len(got4))
				}
				for name, b := range got1 {
					if !bytes.Equal(b, got4[name]) {
						t.Fatalf("%s differs between parallelism 1 and 4", name)
					}
					ext := map[string]string{"none": "." + format, "gzip": "." + format + ".gz", "zstd": "." + format + ".zst", "s2": "." + format + ".s2"}[comp]
					if strings.HasPrefix(name, "part-") && !strings.HasSuffix(name, ext) {
						t.Fatalf("file %s, want extension %s", name, ext)
					}
				}
				for _, par := range []int{1, 4} {
					var src flow.Source[note]
					if format == "csv" {
						src = text.CSV[note](dir)
					} else {
						src = text.JSONL[note](dir)
					}
					var back []note
					for v, err := range flow.Values[note](context.Background(), flow.From(src).Parallel(par)) {
						if err != nil {
							t.Fatal(err)
						}
						back = append(back, v)
					}
					slices.SortFunc(back, func(a, b note) int { return int(a.ID - b.ID) })
					if len(back) != len(want) {
						t.Fatalf("read back %d rows, want %d", len(back), len(want))
					}
					for i := range want {
						if !sameNote(back[i], want[i]) {
							t.Fatalf("row %d read back as %+v, want %+v", i, back[i], want[i])
						}
					}
				}
			})
		}
	}
}

func sameNote(a, b note) bool {
	ca, cb := a.Count, b.Count
	if (ca == nil) != (cb == nil) || ca != nil && *ca != *cb {
		return false
	}
	a.Count, b.Count = nil, nil
	return a == b
}

// The compressed files are the real formats: the klauspost readers
// decode them to the same lines as the uncompressed output.
func TestTextShardsCompressedByTheLibraries(t *testing.T) {
	plain := readTree(t, writeText(t, "jsonl", 2, shards.Compression("none")))
	var want []byte
	for _, name := range slices.Sorted(maps.Keys(plain)) {
		if strings.HasPrefix(name, "part-") {
			want = append(want, plain[name]...)
		}
	}
	for comp, open := range map[string]func([]byte) ([]byte, error){
		"gzip": func(b []byte) ([]byte, error) {
			r, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			var out bytes.Buffer
			_, err = out.ReadFrom(r)
			return out.Bytes(), err
		},
		"zstd": func(b []byte) ([]byte, error) {
			d, err := zstd.NewReader(nil)
			if err != nil {
				return nil, err
			}
			defer d.Close()
			return d.DecodeAll(b, nil)
		},
		"s2": func(b []byte) ([]byte, error) {
			var out bytes.Buffer
			_, err := out.ReadFrom(s2.NewReader(bytes.NewReader(b)))
			return out.Bytes(), err
		},
	} {
		got := readTree(t, writeText(t, "jsonl", 2, shards.Compression(comp)))
		var all []byte
		for _, name := range slices.Sorted(maps.Keys(got)) {
			if !strings.HasPrefix(name, "part-") {
				continue
			}
			b, err := open(got[name])
			if err != nil {
				t.Fatalf("%s: %s: %v", comp, name, err)
			}
			all = append(all, b...)
		}
		if !bytes.Equal(all, want) {
			t.Fatalf("%s: the decompressed files differ from the plain output", comp)
		}
	}
}

// Commit checks text shards too: row counts, row IDs, SHA-256.
func TestTextShardsCommit(t *testing.T) {
	for _, format := range []string{"jsonl", "csv"} {
		dir := writeText(t, format, 2, shards.RowIDColumn("rid"), shards.Compression("zstd"), shards.RowsPerFile(1000))
		dm, err := shards.Commit(dir, 1, shards.ExpectRows(3000))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if dm.Rows != 3000 {
			t.Fatalf("%s: committed %d rows", format, dm.Rows)
		}
		m, err := shards.ReadManifest(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m.Format != format || m.Codec != "zstd" || !strings.Contains(m.Schema, "rid_hi, rid_lo") {
			t.Fatalf("%s manifest: format %q codec %q schema %q", format, m.Format, m.Codec, m.Schema)
		}
		victim := filepath.Join(dir, filepath.FromSlash(m.Files[1].Path))
		b, _ := os.ReadFile(victim)
		b[len(b)/2] ^= 1
		if err := os.WriteFile(victim, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := shards.VerifyManifest(dir, 0); err == nil || !strings.Contains(err.Error(), m.Files[1].Path) || !strings.Contains(err.Error(), "SHA-256") {
			t.Fatalf("%s: a changed file: %v", format, err)
		}
	}
}

func TestTextShardsBadType(t *testing.T) {
	type bad struct {
		ID   int64
		Tags []string
	}
	err := flow.From(sources.Slice([]bad{{1, nil}})).To(shards.CSV[bad](t.TempDir())).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "field Tags") || !strings.Contains(err.Error(), "cannot hold a []string") {
		t.Fatalf("a CSV of a []string field: %v", err)
	}
	err = flow.From(sources.Slice([]int{1})).To(shards.JSONL[int](t.TempDir())).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "must be structs") {
		t.Fatalf("JSONL of ints: %v", err)
	}
	if err := flow.From(sources.Slice([]note{{}})).To(shards.JSONL[note](t.TempDir(), shards.Compression("lz9"))).Run(context.Background()); err == nil || !strings.Contains(err.Error(), `Compression("lz9")`) {
		t.Fatalf("a bad compression: %v", err)
	}
}

// TestJSONLShardsRecordRowIDClash checks that records that already have a
// column the row ID column adds (output of an earlier run with
// RowIDColumn) fail the run, naming the row and the column, instead of
// being written with a key twice; and that another row ID column name
// writes every key once.
func TestJSONLShardsRecordRowIDClash(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":1}`+"\n"+`{"id":2,"row_id_lo":5}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := text.JSONL[sources.Record](in)
	recs := testutil.Items[sources.Record](t, flow.From(src))
	out := filepath.Join(t.TempDir(), "out")
	err := flow.From(src).To(shards.JSONL[sources.Record](out, shards.RowIDColumn("row_id"))).Run(t.Context())
	var re *flow.StageError
	if !errors.As(err, &re) || !re.HasID || re.ID != recs[1].ID {
		t.Fatalf("error %v, want a *flow.StageError that names row %v", err, recs[1].ID)
	}
	if want := `RowIDColumn("row_id"): the record already has a column "row_id_lo"`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if entries, _ := filepath.Glob(filepath.Join(out, "part-*")); len(entries) != 0 {
		t.Errorf("a failed run left %v", entries)
	}

	out = filepath.Join(t.TempDir(), "out")
	if err := flow.From(src).To(shards.JSONL[sources.Record](out, shards.RowIDColumn("rid"))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "part-00000-00000.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"id":1,"rid_hi":%d,"rid_lo":%d}`+"\n"+`{"id":2,"row_id_lo":5,"rid_hi":%d,"rid_lo":%d}`+"\n",
		recs[0].ID.Hi, recs[0].ID.Lo, recs[1].ID.Hi, recs[1].ID.Lo)
	if string(b) != want {
		t.Errorf("wrote\n%s\nwant\n%s", b, want)
	}
}

// TestJSONLShardsEncodingError checks that a row that encoding/json cannot
// encode (NaN in an interface field) fails the run with an error that
// names that row's partition and ID, with and without the row ID
// columns, and leaves no file.
func TestJSONLShardsEncodingError(t *testing.T) {
	type byName struct {
		ID int `json:"id"`
		A  any `json:"a"`
	}
	vals := make([]byName, 10)
	for i := range vals {
		vals[i] = byName{ID: i, A: float64(i)}
	}
	vals[7].A = math.NaN()
	src := sources.Slice(vals, sources.PartitionItems(4))
	items := testutil.Items[byName](t, flow.From(src))
	for _, opts := range [][]shards.Option{nil, {shards.RowIDColumn("rid")}} {
		out := filepath.Join(t.TempDir(), "out")
		err := flow.From(src).To(shards.JSONL[byName](out, opts...)).Run(t.Context())
		var se *flow.StageError
		if !errors.As(err, &se) || !se.HasID || se.ID != items[7].ID || se.Part != items[7].Part {
			t.Fatalf("error %v, want a *flow.StageError that names partition %d, row %v", err, items[7].Part, items[7].ID)
		}
		if !strings.Contains(err.Error(), "json: unsupported value: NaN") {
			t.Errorf("error %q does not say why", err)
		}
		if files, _ := filepath.Glob(filepath.Join(out, "part-*")); len(files) != 0 {
			t.Errorf("a failed run left %v", files)
		}
	}
}

// TestJSONLShardsInvalidUTF8: a string that is not UTF-8 fails the run,
// naming its row, rather than be written with U+FFFD for its bytes; the
// character U+FFFD and the text \ufffd are written and read back as
// they are.
func TestJSONLShardsInvalidUTF8(t *testing.T) {
	type row struct {
		ID   int    `json:"id"`
		Text string `json:"text"`
	}
	good := []row{{0, "\ufffd"}, {1, `\ufffd`}, {2, `\\ufffd`}, {3, `a\`}, {4, "é"}}
	out := filepath.Join(t.TempDir(), "out")
	if err := flow.From(sources.Slice(good)).To(shards.JSONL[row](out)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var back []row
	if err := flow.From(text.JSONL[row](out)).To(sinks.CollectValues(&back)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, good) {
		t.Fatalf("read back %+v, want %+v", back, good)
	}
	bad := append(slices.Clone(good), row{5, "ok"}, row{6, "a\xffb"}, row{7, "c"})
	src := sources.Slice(bad, sources.PartitionItems(3))
	items := testutil.Items[row](t, flow.From(src))
	err := flow.From(src).To(shards.JSONL[row](filepath.Join(t.TempDir(), "out"))).Run(t.Context())
	var se *flow.StageError
	if !errors.As(err, &se) || !se.HasID || se.ID != items[6].ID || !strings.Contains(err.Error(), "is not valid UTF-8") {
		t.Fatalf("error %v, want one that names row %v and says the string is not UTF-8", err, items[6].ID)
	}
}

// measure has floats at the depths where JSON Lines writes NaN and the
// infinities as strings.
type measure struct {
	ID   int64              `json:"id"`
	F    float64            `json:"f"`
	G    float32            `json:"g"`
	P    *float64           `json:"p"`
	L    []float64          `json:"l"`
	Pair [2]float32         `json:"pair"`
	M    map[string]float64 `json:"m,omitempty"`
}

// TestJSONLShardsNonFiniteFloats checks the rule for the floats JSON has
// no number for: JSONL writes NaN, +Inf and -Inf as the strings
// "NaN", "+Inf" and "-Inf" (of structs and of records, whose lists too),
// the other values as encoding/json does, and sources/text.JSONL reads the
// structs back to the same floats; records read back hold the strings,
// which Parquet[sources.Record] writes to float columns as the floats again.
func TestJSONLShardsNonFiniteFloats(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	half := 0.5
	in := []measure{
		{ID: 1, F: 1.5, G: 2, P: &half, L: []float64{1e21, 1e-7}, Pair: [2]float32{3, 4}},
		{ID: 2, F: nan, G: float32(-inf), P: &inf, L: []float64{-inf, 0, nan}, Pair: [2]float32{float32(nan), 1}, M: map[string]float64{"x": nan, "y": 2}},
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := flow.From(sources.Slice(in)).To(shards.JSONL[measure](out)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "part-00000-00000.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := json.Marshal(in[0])
	if err != nil {
		t.Fatal(err)
	}
	want := string(first) + "\n" +
		`{"id":2,"f":"NaN","g":"-Inf","p":"+Inf","l":["-Inf",0,"NaN"],"pair":["NaN",1],"m":{"x":"NaN","y":2}}` + "\n"
	if string(b) != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b, want)
	}
	back := testutil.Items[measure](t, flow.From(text.JSONL[measure](out)))
	if len(back) != 2 {
		t.Fatalf("read back %d rows, want 2", len(back))
	}
	for i, it := range back {
		if !sameMeasure(it.Value, in[i]) {
			t.Errorf("row %d read back as %+v, want %+v", i+1, it.Value, in[i])
		}
	}

	// Records: Parquet floats to JSON Lines and back to Parquet.
	type pqRow struct {
		ID int64     `parquet:"id"`
		F  float64   `parquet:"f"`
		G  float32   `parquet:"g"`
		L  []float64 `parquet:"l,list"`
	}
	src := filepath.Join(t.TempDir(), "in.parquet")
	rows := []pqRow{{ID: 1, F: 1.5, G: 2, L: []float64{1}}, {ID: 2, F: nan, G: float32(-inf), L: []float64{inf, nan}}}
	testutil.WriteParquet(t, src, rows, 10)
	jsonl := filepath.Join(t.TempDir(), "jsonl")
	if err := flow.From(parquet.Read[sources.Record](src)).To(shards.JSONL[sources.Record](jsonl)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(filepath.Join(jsonl, "part-00000-00000.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want = `{"id":1,"f":1.5,"g":2,"l.list.element":[1]}` + "\n" + `{"id":2,"f":"NaN","g":"-Inf","l.list.element":["+Inf","NaN"]}` + "\n"
	if string(b) != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b, want)
	}
	schema, err := parquet.RecordSchema(src)
	if err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(t.TempDir(), "pq")
	if err := flow.From(text.JSONL[sources.Record](jsonl)).To(shards.Parquet[sources.Record](pq, shards.Schema(schema))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := testutil.ReadParquet[pqRow](t, filepath.Join(pq, "part-00000-00000.parquet"))
	if len(got) != 2 || got[0].F != 1.5 || !math.IsNaN(got[1].F) || got[1].G != float32(-inf) ||
		len(got[1].L) != 2 || got[1].L[0] != inf || !math.IsNaN(got[1].L[1]) {
		t.Errorf("Parquet → JSON Lines → Parquet gave %+v, want %+v", got, rows)
	}
}

func sameMeasure(a, b measure) bool {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	if a.ID != b.ID || !same(a.F, b.F) || !same(float64(a.G), float64(b.G)) || (a.P == nil) != (b.P == nil) ||
		a.P != nil && !same(*a.P, *b.P) || len(a.L) != len(b.L) {
		return false
	}
	for i := range a.L {
		if !same(a.L[i], b.L[i]) {
			return false
		}
	}
	if len(a.M) != len(b.M) {
		return false
	}
	for k, v := range a.M {
		if w, ok := b.M[k]; !ok || !same(v, w) {
			return false
		}
	}
	return same(float64(a.Pair[0]), float64(b.Pair[0])) && same(float64(a.Pair[1]), float64(b.Pair[1]))
}

// TestCSVShardsTimesAndDecimals: time.Time and decimal.Decimal fields (and
// pointers to them, nil as an empty field) are written as text that the
// CSV source reads back to the same values: a timestamp in RFC 3339 with
// its nanoseconds and zone offset, a decimal with its scale.
func TestCSVShardsTimesAndDecimals(t *testing.T) {
	type row struct {
		At    time.Time        `csv:"at"`
		Price decimal.Decimal  `csv:"price"`
		Tax   *decimal.Decimal `csv:"tax"`
		Seen  *time.Time       `csv:"seen"`
	}
	zone := time.FixedZone("", -(3*3600 + 30*60))
	at := time.Date(2026, 11, 28, 19, 58, 40, 123456789, zone)
	tax := decimal.RequireFromString("-0.0700")
	rows := []row{
		{At: at, Price: decimal.RequireFromString("12.30"), Tax: &tax, Seen: &at},
		{At: at.UTC().Add(time.Hour), Price: decimal.RequireFromString("1e3")},
	}
	dir := t.TempDir()
	if err := flow.From(sources.Slice(rows)).To(shards.CSV[row](dir)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var back []row
	if err := flow.From(text.CSV[row](dir)).To(sinks.CollectValues(&back)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) {
		t.Fatalf("%d rows back, want %d", len(back), len(rows))
	}
	for i, w := range rows {
		g := back[i]
		if !g.At.Equal(w.At) || !g.Price.Equal(w.Price) || (w.Price.Exponent() < 0 && g.Price.Exponent() != w.Price.Exponent()) ||
			(g.Tax == nil) != (w.Tax == nil) || (w.Tax != nil && g.Tax.String() != w.Tax.String()) ||
			(g.Seen == nil) != (w.Seen == nil) || (w.Seen != nil && !g.Seen.Equal(*w.Seen)) {
			t.Errorf("row %d back as %+v, want %+v", i, g, w)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := "2026-11-28T19:58:40.123456789-03:30,12.30,-0.0700,2026-11-28T19:58:40.123456789-03:30\n"; !strings.Contains(string(data), want) {
		t.Errorf("the file:\n%s\nwant a line %q", data, want)
	}
}
