package shards_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
)

// TestParquetShardsRemovesStaleTemporaries: the hidden temporary files
// that a killed run of the same rank left behind, in the directory and in
// partition directories, are removed by the next run, with or without
// Overwrite; those of other ranks, and other hidden files, stay.
func TestParquetShardsRemovesStaleTemporaries(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		dir := t.TempDir()
		stale := []string{
			".part-00003-00000.parquet.tmp-1234",
			".part-00003-00007.parquet.tmp-x",
			"k=a/.part-00003-00001.parquet.tmp-99",
			"._manifest-00003.json.tmp-5",
		}
		kept := []string{
			".part-00004-00000.parquet.tmp-1234", // another rank's
			"k=a/._manifest-00004.json.tmp-1",
			".part-00003-00000.parquet", // not a temporary name
			".hidden",
			"k=a/notes.txt",
		}
		for _, rel := range append(slices.Clone(stale), kept...) {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("left by a killed run"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		opts := []shards.ParquetOption{shards.RowsPerFile(1000)}
		if overwrite {
			opts = append(opts, shards.Overwrite())
		}
		if err := pqRankPipeline(pqRows(2500), 2, 3, 4).To(shards.Parquet[pqRow](dir, opts...)).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := listTree(t, dir)
		want := append(slices.Clone(kept), "k=a", "_manifest-00003.json",
			"part-00003-00000.parquet", "part-00003-00001.parquet", "part-00003-00002.parquet")
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("overwrite %v: the directory holds\n%q\nwant\n%q", overwrite, got, want)
		}
	}
}
