package shards_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// FuzzHiveValues writes rows of three partition values with
// PartitionBy, and checks the tree (checkHiveTree: nothing outside the
// output directory, one segment per value that decodes back to it,
// distinct directories for distinct values) and that the dataset reads
// back every row with its value, whatever bytes the values hold. The
// seeds are the hostile values, and a value the fuzzer found that the
// tree check first misjudged: cut and hashed, with a byte that is not
// UTF-8 (which the manifest, being JSON, holds as U+FFFD) before the cut.
//
// go test -run FuzzHiveValues runs the seeds; go test -run '^$' -fuzz
// FuzzHiveValues explores.
func FuzzHiveValues(f *testing.F) {
	for i, v := range hostile {
		f.Add(v, hostile[(i+1)%len(hostile)], hostile[(i+7)%len(hostile)])
	}
	f.Add("a", "b", strings.Repeat(`"`, 30)+"\xa9"+strings.Repeat(`"`, 12))
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ctx := context.Background()
		var rows []hiveRow
		for i := range 7 {
			rows = append(rows, hiveRow{Key: []string{a, b, c}[i%3], N: int32(i), Seq: int64(i)})
		}
		dir := filepath.Join(t.TempDir(), "out")
		err := flow.From(sources.Slice(rows, sources.PartitionItems(4))).
			To(shards.Parquet[hiveRow](dir, shards.PartitionBy("key"), shards.Writers(2))).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m, err := shards.VerifyManifest(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkHiveTree(t, dir, m)
		var got []hiveRow
		if err := flow.From(parquet.Read[hiveRow](dir)).To(sinks.CollectValues(&got)).Run(ctx); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(rows) {
			t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
		}
		seen := make([]bool, len(rows))
		for _, r := range got {
			if r.Seq < 0 || r.Seq >= int64(len(rows)) || seen[r.Seq] || r.Key != rows[r.Seq].Key || r.N != rows[r.Seq].N {
				t.Fatalf("read %+v; wrote %+v", r, rows)
			}
			seen[r.Seq] = true
		}
	})
}
