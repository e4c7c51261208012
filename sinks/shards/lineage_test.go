package shards_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

type linRow struct {
	Key string `parquet:"key"`
	N   int64  `parquet:"n"`
}

// linRowWithID is linRow read back with its row-ID columns.
type linRowWithID struct {
	Key string `parquet:"key"`
	N   int64  `parquet:"n"`
	K1  uint64 `parquet:"rid_key1"`
	K2  uint64 `parquet:"rid_key2"`
	Ord uint64 `parquet:"rid_ord"`
}

func linRows(prefix string, n int) []linRow {
	rows := make([]linRow, n)
	for i := range rows {
		rows[i] = linRow{Key: fmt.Sprintf("%s%d", prefix, i), N: int64(i)}
	}
	return rows
}

// lineagePipelines are pipelines whose IDs are of every kind: a source's
// (several files, filtered, in parallel), flat-mapped, mixed, generated,
// and a stream where source and derived IDs alternate.
func lineagePipelines() map[string]func(par int) *flow.Pipeline {
	src := func(name string, n int) *flow.Pipeline {
		return flow.From(sources.Slice(linRows(name+"/", n), sources.Named(name), sources.PartitionItems(2500)))
	}
	return map[string]func(int) *flow.Pipeline{
		"source": func(par int) *flow.Pipeline {
			return src("data/a.csv", 20_000).Via(operators.Filter(func(r linRow) bool { return r.N%17 != 3 })).Parallel(par)
		},
		"flatmap": func(par int) *flow.Pipeline {
			return src("b", 3000).Via(operators.FlatMap(func(r linRow) ([]linRow, error) {
				return []linRow{{r.Key + "#0", r.N}, {r.Key + "#1", r.N}}, nil
			})).Parallel(par)
		},
		"mix": func(par int) *flow.Pipeline {
			return flow.From(operators.Mix[linRow]([]*flow.Pipeline{src("m0", 4000), src("m1", 4000)}, []float64{2, 1})).WithSeed(7).
				Via(operators.Map(func(r linRow) (linRow, error) { return r, nil })).Parallel(par)
		},
		"generate": func(par int) *flow.Pipeline {
			return flow.From(sources.Generate(5000, func(i int64) (linRow, error) { return linRow{fmt.Sprint("g", i), i}, nil })).Parallel(par)
		},
		"alternating": func(par int) *flow.Pipeline {
			files := make([]rowid.Combiner, 5)
			for f := range files {
				files[f] = rowid.NewCombiner(rowid.FromString(fmt.Sprintf("part-%d.parquet", f)))
			}
			return src("alt", 12_000).Via(operators.SetIDs(func(r linRow) rowid.ID {
				if r.N%3 == 0 {
					return rowid.FromString(r.Key) // derived
				}
				return files[r.N/2500].Combine(rowid.Ordinal(uint64(r.N%2500 + 100_000)))
			})).Parallel(par)
		},
	}
}

// TestRowIDColumnExact writes pipelines of every kind of ID with
// RowIDColumn, reads the files back, and checks that shards.RowID gives
// every row the ID it had, and that the files do not depend on the
// parallelism upstream.
func TestRowIDColumnExact(t *testing.T) {
	for name, p := range lineagePipelines() {
		t.Run(name, func(t *testing.T) {
			var items []flow.Item[linRow]
			if err := p(2).To(sinks.Collect(&items)).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			want := map[string]rowid.ID{}
			for _, it := range items {
				want[it.Value.Key] = it.ID
			}
			var sums []string
			for _, par := range []int{1, 2, 4} {
				dir := filepath.Join(t.TempDir(), "out")
				err := p(par).To(shards.Parquet[linRow](dir, shards.RowIDColumn("rid"), shards.Writers(2), shards.RowsPerFile(4000), shards.RowGroupRows(1500))).Run(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				m, err := shards.ReadManifest(dir, 0)
				if err != nil {
					t.Fatal(err)
				}
				got := concatFiles[linRowWithID](t, dir, m)
				if len(got) != len(items) {
					t.Fatalf("parallelism %d: %d rows, want %d", par, len(got), len(items))
				}
				for _, r := range got {
					if id := shards.RowID(r.K1, r.K2, r.Ord); id != want[r.Key] {
						t.Fatalf("parallelism %d: row %s: ID %v (from %x %x %x), want %v", par, r.Key, id, r.K1, r.K2, r.Ord, want[r.Key])
					}
				}
				var s []string
				for _, f := range m.Files {
					s = append(s, f.Path+" "+f.SHA256)
				}
				sums = append(sums, strings.Join(s, "\n"))
			}
			if sums[0] != sums[1] || sums[0] != sums[2] {
				t.Errorf("the files differ with the parallelism upstream:\n%s", strings.Join(sums, "\n--\n"))
			}
		})
	}
}

// rowIDBytes returns the compressed bytes of the row-ID columns of the
// Parquet file at path, and the file's size.
func rowIDBytes(t *testing.T, path, name string) (ids, size int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(strings.NewReader(string(b)), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if strings.HasPrefix(c.MetaData.PathInSchema[0], name+"_") {
				ids += c.MetaData.TotalCompressedSize
			}
		}
	}
	return ids, int64(len(b))
}

// TestRowIDColumnSize checks what the form is for: a source's rows, in
// parallel and over two writers, cost the row-ID columns a small fraction
// of a byte per row.
func TestRowIDColumnSize(t *testing.T) {
	const n = 400_000
	dir := filepath.Join(t.TempDir(), "out")
	p := flow.From(sources.Slice(linRows("k", n), sources.Named("data/events.csv"), sources.PartitionItems(50_000))).Parallel(2)
	if err := p.To(shards.Parquet[linRow](dir, shards.RowIDColumn("rid"), shards.Writers(2))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	m, err := shards.ReadManifest(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids, size int64
	for _, f := range m.Files {
		i, s := rowIDBytes(t, filepath.Join(dir, f.Path), "rid")
		ids, size = ids+i, size+s
	}
	perRow := float64(ids) / n
	t.Logf("row-ID columns: %d bytes of %d (%.2f%%), %.4f bytes a row", ids, size, 100*float64(ids)/float64(size), perRow)
	// 0.026 when measured: a run of one value (key1, key2) or of steps of
	// one (ord) is 5 bytes per 128 values before compression, and each
	// page adds its header and statistics.
	if perRow > 0.04 {
		t.Errorf("row-ID columns take %.4f bytes a row, want at most 0.04", perRow)
	}
}
