package shards_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

type hiveRow struct {
	Key string  `parquet:"key"`
	N   int32   `parquet:"n"`
	Opt *string `parquet:"opt,optional"`
	Seq int64   `parquet:"seq"`
}

// hiveRowWithID is hiveRow read back from files with RowIDColumn("rid").
// It does not embed hiveRow: parquet-go v0.32.0 reads a null optional
// field of an embedded struct as a non-nil pointer (see also
// parquet-go/parquet-go#163).
type hiveRowWithID struct {
	Key string  `parquet:"key"`
	N   int32   `parquet:"n"`
	Opt *string `parquet:"opt,optional"`
	Seq int64   `parquet:"seq"`
	K1  uint64  `parquet:"rid_key1"`
	K2  uint64  `parquet:"rid_key2"`
	Ord uint64  `parquet:"rid_ord"`
}

func (r hiveRowWithID) row() hiveRow { return hiveRow{r.Key, r.N, r.Opt, r.Seq} }

// sameInJSON reports whether a and b are the same JSON string: the
// manifest, being JSON, holds values that are not valid UTF-8 with
// U+FFFD in place of the bad bytes.
func sameInJSON(a, b string) bool {
	return viaJSON(a) == viaJSON(b)
}

func viaJSON(s string) string {
	b, _ := json.Marshal(s)
	var out string
	json.Unmarshal(b, &out)
	return out
}

// hostile are partition values that must neither escape the output
// directory nor make odd names.
var hostile = []string{
	"plain", "../../etc", "..", ".", "...", "a..b", "trailing.", "a/b", "/abs", `a\b`, `..\..\x`,
	"\x00", "nul\x00in", "\n\t\r", "\x7f", "a=b", "%41", "50%", "", "__HIVE_DEFAULT_PARTITION__",
	"~tilde", "\xff\xfe", "Ünïcødé 日本", "_hidden", ".hidden", "C:", "*?<>|\"'#[]{}^", " spaced ",
	strings.Repeat("x", 300), strings.Repeat("x", 300) + "y", strings.Repeat("é/", 100), strings.Repeat("%", 50),
}

func hiveRows(n int) []hiveRow {
	rows := make([]hiveRow, n)
	for i := range rows {
		rows[i] = hiveRow{Key: hostile[i%len(hostile)], N: int32(i % 3), Seq: int64(i)}
		if i%4 != 0 {
			s := fmt.Sprint("o", i%2)
			rows[i].Opt = &s
		}
	}
	return rows
}

var partName = regexp.MustCompile(`^part-00000-\d{5}\.parquet$`)

func TestParquetShardsHive(t *testing.T) {
	ctx := context.Background()
	rows := hiveRows(3000)
	p := flow.From(sources.Slice(rows, sources.PartitionItems(400), sources.ChunkSize(90)))
	var items []flow.Item[hiveRow]
	if err := p.To(sinks.Collect(&items)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	for _, writers := range []int{1, 2} {
		for _, withID := range []bool{false, true} {
			t.Run(fmt.Sprintf("writers=%d/rowid=%t", writers, withID), func(t *testing.T) {
				root := t.TempDir()
				dir := filepath.Join(root, "out")
				opts := []shards.ParquetOption{shards.PartitionBy("key"), shards.Writers(writers), shards.RowsPerFile(25)}
				if withID {
					opts = append(opts, shards.RowIDColumn("rid"))
				}
				if err := p.To(shards.Parquet[hiveRow](dir, opts...)).Run(ctx); err != nil {
					t.Fatal(err)
				}
				if got := listTree(t, root)[0]; got != "out" || len(listTree(t, root)) != len(listTree(t, dir))+1 {
					t.Fatalf("wrote outside the output directory: %q", listTree(t, root))
				}
				m := checkManifest(t, dir, 0, nil)
				checkHiveTree(t, dir, m)

				// Every row is in the partition of its value, in stream
				// order within a writer's files of a partition, with its ID.
				seen := make([]bool, len(rows))
				for _, f := range m.Files {
					b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
					if err != nil {
						t.Fatal(err)
					}
					var got []hiveRowWithID
					if withID {
						got = readParquet[hiveRowWithID](t, b)
					} else {
						for _, r := range readParquet[hiveRow](t, b) {
							got = append(got, hiveRowWithID{Key: r.Key, N: r.N, Opt: r.Opt, Seq: r.Seq})
						}
					}
					for i, r := range got {
						want := rows[r.Seq]
						if seen[r.Seq] || r.Key != want.Key || !sameInJSON(r.Key, f.Partition[0].Value) || r.N != want.N ||
							(r.Opt == nil) != (want.Opt == nil) || r.Opt != nil && *r.Opt != *want.Opt {
							t.Fatalf("%s: row %+v, want %+v in partition %q", f.Path, r.row(), want, f.Partition[0].Value)
						}
						seen[r.Seq] = true
						if i > 0 && r.Seq <= got[i-1].Seq {
							t.Fatalf("%s: rows out of order", f.Path)
						}
						if id := shards.RowID(r.K1, r.K2, r.Ord); withID && id != items[r.Seq].ID {
							t.Fatalf("%s: row %d has ID %s, want %s", f.Path, r.Seq, id, items[r.Seq].ID)
						}
					}
					if f.FirstID != items[got[0].Seq].ID || f.LastID != items[got[len(got)-1].Seq].ID {
						t.Errorf("%s: manifest IDs %s…%s", f.Path, f.FirstID, f.LastID)
					}
				}
				if i := slices.Index(seen, false); i >= 0 {
					t.Fatalf("row %d was not written", i)
				}
			})
		}
	}
}

// checkHiveTree checks that the files of m are the only ones in dir, that
// every partition directory is one segment key=value that url.PathUnescape
// decodes back to the manifest's value (empty values being the default
// partition, long ones cut and hashed), that distinct values have
// distinct directories, and that dataset discovery finds every file with
// its partition.
func checkHiveTree(t *testing.T, dir string, m *shards.Manifest) {
	t.Helper()
	want := []string{"_manifest-00000.json"}
	dirValue := map[string]string{}
	for _, f := range m.Files {
		want = append(want, f.Path)
		segs := strings.Split(f.Path, "/")
		if len(segs) != len(m.PartitionBy)+1 || !partName.MatchString(segs[len(segs)-1]) {
			t.Fatalf("odd path %q", f.Path)
		}
		for i, seg := range segs[:len(segs)-1] {
			want = append(want, strings.Join(segs[:i+1], "/"))
			key, enc, ok := strings.Cut(seg, "=")
			col, err1 := url.PathUnescape(key)
			val, err2 := url.PathUnescape(enc)
			if !ok || err1 != nil || err2 != nil || col != m.PartitionBy[i] || len(seg) > 200 || strings.ContainsAny(enc, "/\\\x00=") {
				t.Fatalf("%s: odd segment %q", f.Path, seg)
			}
			v := f.Partition[i].Value
			switch cut := strings.LastIndex(val, "~"); {
			case v == "":
				ok = enc == "__HIVE_DEFAULT_PARTITION__"
			case sameInJSON(val, v):
			case cut > 0 && len(val)-cut == 33:
				ok = strings.HasPrefix(v, viaJSON(val[:cut])) // the manifest's value is JSON's
			default:
				ok = false
			}
			if !ok {
				t.Errorf("%s: directory %q does not decode to %q", f.Path, seg, v)
			}
		}
		d := path.Dir(f.Path)
		if other, ok := dirValue[d]; ok && other != fmt.Sprint(f.Partition) {
			t.Errorf("%s: values %s and %v share it", d, other, f.Partition)
		}
		dirValue[d] = fmt.Sprint(f.Partition)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if got := listTree(t, dir); !slices.Equal(got, want) {
		t.Errorf("tree:\n%q\nwant:\n%q", got, want)
	}
	ds, err := dataset.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Columns(), m.PartitionBy) || len(ds.Files()) != len(m.Files) {
		t.Fatalf("discovery: columns %q, %d files; want %q, %d files", ds.Columns(), len(ds.Files()), m.PartitionBy, len(m.Files))
	}
	for i, f := range ds.Files() {
		if f.RelPath != m.Files[i].Path {
			t.Errorf("discovery found %s, manifest has %s", f.RelPath, m.Files[i].Path)
		}
	}
}

func TestParquetShardsHiveColumns(t *testing.T) {
	// Two columns, an integer and a pointer, the second with a name that
	// discovery would skip unescaped.
	type row struct {
		N   int32   `parquet:"n"`
		Opt *string `parquet:"_opt,optional"`
		Seq int64   `parquet:"seq"`
	}
	rows := make([]row, 1000)
	for i := range rows {
		rows[i] = row{N: int32(i%3 - 1), Seq: int64(i)}
		if i%2 == 0 {
			s := fmt.Sprint("v", i%4)
			rows[i].Opt = &s
		}
	}
	dir := t.TempDir()
	err := flow.From(sources.Slice(rows, sources.PartitionItems(100))).
		To(shards.Parquet[row](dir, shards.PartitionBy("n", "_opt"))).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, nil)
	checkHiveTree(t, dir, m)
	var dirs []string
	for _, f := range m.Files {
		dirs = append(dirs, path.Dir(f.Path))
		for _, r := range readParquet[row](t, mustRead(t, filepath.Join(dir, f.Path))) {
			opt := ""
			if r.Opt != nil {
				opt = *r.Opt
			}
			if fmt.Sprint(r.N) != f.Partition[0].Value || opt != f.Partition[1].Value {
				t.Fatalf("%s holds %+v", f.Path, r)
			}
		}
	}
	want := []string{
		"n=-1/%5Fopt=__HIVE_DEFAULT_PARTITION__", "n=-1/%5Fopt=v0", "n=-1/%5Fopt=v2",
		"n=0/%5Fopt=__HIVE_DEFAULT_PARTITION__", "n=0/%5Fopt=v0", "n=0/%5Fopt=v2",
		"n=1/%5Fopt=__HIVE_DEFAULT_PARTITION__", "n=1/%5Fopt=v0", "n=1/%5Fopt=v2",
	}
	if !slices.Equal(dirs, want) {
		t.Errorf("directories %q, want %q", dirs, want)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Base is embedded in the rows of TestParquetShardsHiveKinds.
type Base struct {
	Region []byte `parquet:"region"`
}

func TestParquetShardsHiveKinds(t *testing.T) {
	// Columns of an embedded struct, []byte, bool and float values.
	type row struct {
		Base
		OK    bool    `parquet:"ok"`
		Ratio float32 `parquet:"ratio"`
		Seq   int64   `parquet:"seq"`
	}
	rows := make([]row, 400)
	for i := range rows {
		rows[i] = row{Base: Base{Region: []byte([]string{"eu/west", "us"}[i%2])}, OK: i%4 < 2, Ratio: float32(i%3) / 2, Seq: int64(i)}
	}
	dir := t.TempDir()
	err := flow.From(sources.Slice(rows, sources.PartitionItems(50))).
		To(shards.Parquet[row](dir, shards.PartitionBy("region", "ok", "ratio"), shards.Writers(3))).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, nil)
	checkHiveTree(t, dir, m)
	dirs := map[string]int64{}
	for _, f := range m.Files {
		dirs[path.Dir(f.Path)] += f.Rows
	}
	want := map[string]int64{}
	for _, r := range rows {
		d := fmt.Sprintf("region=%s/ok=%t/ratio=%v", strings.ReplaceAll(string(r.Region), "/", "%2F"), r.OK, r.Ratio)
		want[d]++
	}
	if fmt.Sprint(dirs) != fmt.Sprint(want) {
		t.Errorf("rows by directory %v, want %v", dirs, want)
	}
}

// TestHiveValuesRoundTrip writes every hostile partition value with
// PartitionBy and reads the output back with sources/parquet.Read: each row's
// value is the value written, "" and "__HIVE_DEFAULT_PARTITION__" alike,
// and values too long for a directory name come back whole.
func TestHiveValuesRoundTrip(t *testing.T) {
	ctx := context.Background()
	rows := hiveRows(len(hostile) * 2)
	dir := filepath.Join(t.TempDir(), "out")
	err := flow.From(sources.Slice(rows)).To(shards.Parquet[hiveRow](dir, shards.PartitionBy("key"))).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []hiveRow
	if err := flow.From(parquet.Read[hiveRow](dir)).To(sinks.CollectValues(&got)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
	}
	for _, r := range got {
		if want := rows[r.Seq].Key; r.Key != want {
			t.Errorf("row %d: key %q, want %q", r.Seq, r.Key, want)
		}
	}
}
