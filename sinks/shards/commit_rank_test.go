package shards_test

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// rerunJob writes rows as rank 2 of 3 in dir: 2000 rows make six files.
func rerunJob(dir string, rows []pqRow, opts ...shards.ParquetOption) error {
	opts = append([]shards.ParquetOption{shards.RowsPerFile(400), shards.Writers(2), shards.RowIDColumn("rid")}, opts...)
	return pqRankPipeline(rows, 2, 2, 3, sources.PartitionItems(300)).To(shards.Parquet[pqRow](dir, opts...)).Run(context.Background())
}

// inodes returns the file info of every file under dir, by path.
func inodes(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	for rel := range readTree(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		out[rel] = fi
	}
	return out
}

// TestRerunCompletesInterruptedCommit: files left under final names with
// no manifest, as a commit killed before its manifest leaves them, are
// completed by a rerun without Overwrite: the files with the run's bytes
// are kept as they are (same inode), the missing ones written, and the
// output is that of an uninterrupted run.
func TestRerunCompletesInterruptedCommit(t *testing.T) {
	rows := pqRows(2000)
	ref := t.TempDir()
	if err := rerunJob(ref, rows); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, ref)
	m, err := shards.ReadManifest(ref, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 6 {
		t.Fatalf("%d files, want 6", len(m.Files))
	}
	for _, keep := range []int{0, 2, 6} {
		dir := t.TempDir()
		if err := rerunJob(dir, rows); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, shards.ManifestName(2)))
		for _, f := range m.Files[keep:] {
			os.Remove(filepath.Join(dir, f.Path))
		}
		before := inodes(t, dir)
		if err := rerunJob(dir, rows); err != nil {
			t.Fatalf("rerun with %d files left: %v", keep, err)
		}
		if got := readTree(t, dir); !maps.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("rerun with %d files left: the output differs from an uninterrupted run", keep)
		}
		after := inodes(t, dir)
		for rel, fi := range before {
			if !os.SameFile(fi, after[rel]) {
				t.Errorf("rerun with %d files left replaced %s, which had the run's bytes", keep, rel)
			}
		}
	}
}

// TestRerunOfCommittedRank: a rerun of a committed rank by the same
// pipeline changes nothing when it writes the same output, restores a
// committed file that went missing, and fails, changing nothing, when its
// output differs.
func TestRerunOfCommittedRank(t *testing.T) {
	rows := pqRows(2000)
	dir := t.TempDir()
	if err := rerunJob(dir, rows); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, dir)
	before := inodes(t, dir)
	if err := rerunJob(dir, rows); err != nil {
		t.Fatal(err)
	}
	after := inodes(t, dir)
	if len(after) != len(before) {
		t.Fatalf("the rerun left %d files, want %d", len(after), len(before))
	}
	for rel, fi := range before {
		if !os.SameFile(fi, after[rel]) || !fi.ModTime().Equal(after[rel].ModTime()) {
			t.Errorf("the rerun of a committed rank touched %s", rel)
		}
	}

	lost := "part-00002-00003.parquet"
	if err := os.Remove(filepath.Join(dir, lost)); err != nil {
		t.Fatal(err)
	}
	if err := rerunJob(dir, rows); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("the rerun did not restore %s", lost)
	}

	// Other rows, same pipeline: the first file differs.
	other := pqRows(2000)
	other[7].Text = "changed"
	err := rerunJob(dir, other)
	if err == nil || !strings.Contains(err.Error(), "part-00002-00000.parquet, committed by an earlier run of the same pipeline, is not this run's output (this run wrote other bytes)") {
		t.Fatalf("rerun with other rows: %v", err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatal("a refused rerun changed the directory")
	}
	// A file of the rank that the run does not write.
	extra := filepath.Join(dir, "part-00002-00009.parquet")
	if err := os.WriteFile(extra, want["part-00002-00000.parquet"], 0o666); err != nil {
		t.Fatal(err)
	}
	err = rerunJob(dir, rows)
	if err == nil || !strings.Contains(err.Error(), "part-00002-00009.parquet, committed by an earlier run of the same pipeline, is not this run's output (this run does not write it)") {
		t.Fatalf("rerun with a file it does not write: %v", err)
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatal("a refused rerun changed the directory")
	}
	// Overwrite replaces it.
	if err := rerunJob(dir, other, shards.Overwrite()); err != nil {
		t.Fatal(err)
	}
	checkManifest(t, dir, 2, nil)
}

// TestRerunLeftoverDiffers: a file left with no manifest that holds other
// bytes than the run's fails the rerun at its commit, and the directory
// keeps it.
func TestRerunLeftoverDiffers(t *testing.T) {
	dir := t.TempDir()
	if err := rerunJob(dir, pqRows(2000)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, shards.ManifestName(2)))
	if err := os.WriteFile(filepath.Join(dir, "part-00002-00001.parquet"), []byte("torn"), 0o666); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, dir)
	err := rerunJob(dir, pqRows(2000))
	if err == nil || !strings.Contains(err.Error(), "part-00002-00001.parquet, left by an interrupted run (there is no manifest), is not this run's output (this run wrote other bytes)") {
		t.Fatalf("rerun: %v", err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, before, bytes.Equal) {
		t.Fatal("a refused rerun changed the directory")
	}
}

// TestRerunOtherPipeline: a committed rank of another pipeline, or with a
// manifest of another version, is refused before anything is written.
func TestRerunOtherPipeline(t *testing.T) {
	dir := t.TempDir()
	if err := rerunJob(dir, pqRows(2000)); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, dir)
	p := flow.From(everyRank(sources.Slice(pqRows(2000)))).
		Via(operators.Filter(func(pqRow) bool { return true })).WithRank(2, 3)
	err := p.To(shards.Parquet[pqRow](dir)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "already holds output of rank 2 of another pipeline (_manifest-00002.json has fingerprint") {
		t.Fatalf("other pipeline: %v", err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, before, bytes.Equal) {
		t.Fatal("a refused run changed the directory")
	}

	path := filepath.Join(dir, shards.ManifestName(2))
	old := bytes.Replace(before[shards.ManifestName(2)], []byte(`"version": 3,`), []byte(`"version": 2,`), 1)
	if err := os.WriteFile(path, old, 0o666); err != nil {
		t.Fatal(err)
	}
	err = rerunJob(dir, pqRows(2000))
	if err == nil || !strings.Contains(err.Error(), "that this run cannot check (manifest "+path+": format version 2, but this version of rowflow reads only version 3") {
		t.Fatalf("old manifest: %v", err)
	}
	if _, err := shards.ReadManifest(dir, 2); err == nil || !strings.Contains(err.Error(), "format version 2") {
		t.Fatalf("ReadManifest of an old manifest: %v", err)
	}
	if err := rerunJob(dir, pqRows(2000), shards.Overwrite()); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, before, bytes.Equal) {
		t.Fatal("Overwrite did not rewrite the same output")
	}
}

// TestRerunPartitioned: a rerun completes an interrupted commit of
// Hive-partitioned output, in directories with hostile names, and the
// result commits.
func TestRerunPartitioned(t *testing.T) {
	rows := hiveRows(3000)
	run := func(dir string) error {
		return flow.From(sources.Slice(rows, sources.PartitionItems(400))).
			To(shards.Parquet[hiveRow](dir, shards.PartitionBy("key"), shards.RowsPerFile(40), shards.Writers(2),
				shards.RowIDColumn("rid"))).Run(context.Background())
	}
	ref := t.TempDir()
	if err := run(ref); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, ref)
	m, err := shards.VerifyManifest(ref, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, shards.ManifestName(0)))
	for i, f := range m.Files {
		if i%2 == 1 {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f.Path))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatal("the rerun's output differs from an uninterrupted run's")
	}
	dm, err := shards.Commit(dir, 1, shards.ExpectRows(3000))
	if err != nil {
		t.Fatal(err)
	}
	if dm.Files != len(m.Files) || !slices.Equal(dm.PartitionBy, []string{"key"}) {
		t.Errorf("dataset manifest %+v", dm)
	}
}

// TestRankFromPipeline: a sink writes the files and the manifest of the
// run's rank.
func TestRankFromPipeline(t *testing.T) {
	dir := t.TempDir()
	p := pqPipeline(pqRows(300), 1).WithRank(1, 3)
	if err := p.To(shards.Parquet[pqRow](dir)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 1, nil)
	if m.Rank != 1 || m.World != 3 || m.Rows != 100 {
		t.Errorf("manifest: rank %d of %d, %d rows; want rank 1 of 3, 100 rows", m.Rank, m.World, m.Rows)
	}
	if got := listTree(t, dir); !slices.Equal(got, []string{"_manifest-00001.json", "part-00001-00000.parquet"}) {
		t.Errorf("files %q", got)
	}
}
