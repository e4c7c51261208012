package sinks_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
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

func writeText(t *testing.T, format string, par int, opts ...sinks.TextOption) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	p := flow.From(sources.Slice(notes(3000), sources.PartitionSize(250))).
		Via(operators.Map(func(n note) (note, error) { return n, nil })).Parallel(par)
	sink := sinks.JSONLShards[note](dir, opts...)
	if format == "csv" {
		sink = sinks.CSVShards[note](dir, opts...)
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
				opts := []sinks.TextOption{sinks.RowsPerFile(700), sinks.Writers(3), sinks.Compression(comp)}
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
						src = sources.CSV[note](dir)
					} else {
						src = sources.JSONL[note](dir)
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
	plain := readTree(t, writeText(t, "jsonl", 2, sinks.Compression("none")))
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
		got := readTree(t, writeText(t, "jsonl", 2, sinks.Compression(comp)))
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
		dir := writeText(t, format, 2, sinks.RowIDColumn("rid"), sinks.Compression("zstd"), sinks.RowsPerFile(1000))
		dm, err := sinks.Commit(dir, 1, sinks.ExpectRows(3000))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if dm.Rows != 3000 {
			t.Fatalf("%s: committed %d rows", format, dm.Rows)
		}
		m, err := sinks.ReadManifest(dir, 0)
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
		if _, err := sinks.VerifyManifest(dir, 0); err == nil || !strings.Contains(err.Error(), m.Files[1].Path) || !strings.Contains(err.Error(), "SHA-256") {
			t.Fatalf("%s: a changed file: %v", format, err)
		}
	}
}

func TestTextShardsBadType(t *testing.T) {
	type bad struct {
		ID   int64
		Tags []string
	}
	err := flow.From(sources.Slice([]bad{{1, nil}})).To(sinks.CSVShards[bad](t.TempDir())).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "field Tags") || !strings.Contains(err.Error(), "cannot hold a []string") {
		t.Fatalf("a CSV of a []string field: %v", err)
	}
	err = flow.From(sources.Slice([]int{1})).To(sinks.JSONLShards[int](t.TempDir())).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "must be structs") {
		t.Fatalf("JSONL of ints: %v", err)
	}
	if err := flow.From(sources.Slice([]note{{}})).To(sinks.JSONLShards[note](t.TempDir(), sinks.Compression("lz9"))).Run(context.Background()); err == nil || !strings.Contains(err.Error(), `Compression("lz9")`) {
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
	src := sources.JSONLRecords(in)
	recs := testutil.Items[sources.Record](t, flow.From(src))
	out := filepath.Join(t.TempDir(), "out")
	err := flow.From(src).To(sinks.JSONLShards[sources.Record](out, sinks.RowIDColumn("row_id"))).Run(t.Context())
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
	if err := flow.From(src).To(sinks.JSONLShards[sources.Record](out, sinks.RowIDColumn("rid"))).Run(t.Context()); err != nil {
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
// encode (NaN in a map) fails the run with an error that names that row's
// partition and ID, with and without the row ID columns, and leaves no
// file.
func TestJSONLShardsEncodingError(t *testing.T) {
	type byName struct {
		ID int                `json:"id"`
		M  map[string]float64 `json:"m"`
	}
	vals := make([]byName, 10)
	for i := range vals {
		vals[i] = byName{ID: i, M: map[string]float64{"x": float64(i)}}
	}
	vals[7].M["x"] = math.NaN()
	src := sources.Slice(vals, sources.PartitionSize(4))
	items := testutil.Items[byName](t, flow.From(src))
	for _, opts := range [][]sinks.TextOption{nil, {sinks.RowIDColumn("rid")}} {
		out := filepath.Join(t.TempDir(), "out")
		err := flow.From(src).To(sinks.JSONLShards[byName](out, opts...)).Run(t.Context())
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
