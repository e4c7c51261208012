package shards_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// shareJob writes, as rank rank of world, the rows of pqRows(3000) whose
// ID modulo 3 is in keep.
func shareJob(t *testing.T, dir string, rank, world int, keep []int64, opts ...shards.ParquetOption) {
	t.Helper()
	opts = append([]shards.ParquetOption{shards.RowsPerFile(400)}, opts...)
	p := flow.From(everyRank(sources.Slice(pqRows(3000), sources.PartitionItems(500)))).WithRank(rank, world).
		Via(operators.Filter(func(r pqRow) bool {
			for _, k := range keep {
				if r.ID%3 == k {
					return true
				}
			}
			return false
		}))
	if err := p.To(shards.Parquet[pqRow](dir, opts...)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// threeRanks writes a dataset of three ranks that split pqRows(3000).
func threeRanks(t *testing.T, opts ...shards.ParquetOption) string {
	t.Helper()
	dir := t.TempDir()
	for r := range 3 {
		shareJob(t, dir, r, 3, []int64{int64(r)}, opts...)
	}
	return dir
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q\ndoes not contain %q", err, p)
		}
	}
}

func TestCommit(t *testing.T) {
	dir := threeRanks(t, shards.RowIDColumn("rid"))
	dm, err := shards.Commit(dir, 3, shards.ExpectRows(3000))
	if err != nil {
		t.Fatal(err)
	}
	if dm.World != 3 || dm.Rows != 3000 || dm.Files != 9 || dm.RowIDs != "distinct" || dm.RowIDColumn != "rid" || len(dm.Ranks) != 3 {
		t.Fatalf("dataset manifest %+v", dm)
	}
	var files int
	var size int64
	for r, dr := range dm.Ranks {
		m, err := shards.VerifyManifest(dir, r)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, shards.ManifestName(r)))
		if err != nil {
			t.Fatal(err)
		}
		if dr.Rank != r || dr.Rows != 1000 || dr.Files != len(m.Files) || dr.Bytes != m.Bytes ||
			dr.Fingerprint != m.Fingerprint || dr.SHA256 != sha256Hex(b) || dr.Manifest != shards.ManifestName(r) {
			t.Errorf("rank %d: %+v; its manifest %+v", r, dr, m)
		}
		files += dr.Files
		size += dr.Bytes
	}
	if files != dm.Files || size != dm.Bytes {
		t.Errorf("totals %d files %d bytes, the ranks add up to %d %d", dm.Files, dm.Bytes, files, size)
	}
	read, err := shards.ReadDatasetManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if read.Rows != dm.Rows || read.Ranks[2] != dm.Ranks[2] {
		t.Errorf("ReadDatasetManifest: %+v, Commit returned %+v", read, dm)
	}

	// A second commit of the same output leaves the file as it is.
	path := filepath.Join(dir, shards.DatasetManifestName)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shards.Commit(dir, 3); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
		t.Error("a second commit rewrote the dataset manifest")
	}
	if got := listTree(t, dir); len(got) != 13 {
		t.Errorf("the directory holds %q: want 9 files and 4 manifests", got)
	}

	_, err = shards.Commit(dir, 3, shards.ExpectRows(2999))
	wantErr(t, err, "the ranks wrote 3000 rows in all, ExpectRows says 2999")
}

func TestCommitRanks(t *testing.T) {
	dir := threeRanks(t)
	_, err := shards.Commit(dir, 5)
	wantErr(t, err, `shards: Commit("`+dir+`"): rank 3, 4 of 5 have not finished: no manifest`)
	_, err = shards.Commit(dir, 2)
	wantErr(t, err, "the directory holds output of ranks outside a world of 2: rank 2's manifest _manifest-00002.json, rank 2's part-00002-00000.parquet")
	if _, err := os.Stat(filepath.Join(dir, shards.DatasetManifestName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a failed commit wrote the dataset manifest")
	}
	_, err = shards.Commit(dir, 0)
	wantErr(t, err, "world 0: must be from 1 to 65536")
	_, err = shards.Commit(dir, 3, shards.ExpectRows(-1))
	wantErr(t, err, "ExpectRows(-1)")

	// Without the row-ID column the files' bounds are compared.
	dm, err := shards.Commit(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if dm.RowIDs != "file bounds" || dm.RowIDColumn != "" {
		t.Errorf("dataset manifest %+v", dm)
	}
}

// TestCommitDuplicates: rows written by two ranks fail the commit, which
// names the row ID and both files.
func TestCommitDuplicates(t *testing.T) {
	dir := t.TempDir()
	shareJob(t, dir, 0, 3, []int64{0}, shards.RowIDColumn("rid"))
	shareJob(t, dir, 1, 3, []int64{1, 2}, shards.RowIDColumn("rid"))
	shareJob(t, dir, 2, 3, []int64{2}, shards.RowIDColumn("rid"))
	_, err := shards.Commit(dir, 3)
	wantErr(t, err, "is written more than once: in rank 1's part-00001-", " and rank 2's part-00002-")
	if n := strings.Count(err.Error(), "is written more than once"); n != 3 {
		t.Errorf("%d duplicates reported, want the first 3", n)
	}
	// The IDs named are rows of both files.
	id := regexp.MustCompile(`row ID ([0-9a-f]{32}) is written more than once: in rank 1's (\S+) and rank 2's (\S+)`).FindStringSubmatch(err.Error())
	if id == nil {
		t.Fatalf("error %q", err)
	}
	for r, file := range map[int]string{1: id[2], 2: id[3]} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, row := range readParquet[pqRowWithID](t, b) {
			found = found || row.id().String() == id[1]
		}
		if !found {
			t.Errorf("rank %d's %s has no row %s", r, file, id[1])
		}
	}

	// Without the row-ID column: two ranks that wrote the same rows.
	dir = t.TempDir()
	shareJob(t, dir, 0, 2, []int64{0, 1})
	shareJob(t, dir, 1, 2, []int64{0, 1})
	_, err = shards.Commit(dir, 2)
	wantErr(t, err, "is written more than once: in rank 0's part-00000-00000.parquet and rank 1's part-00001-00000.parquet")
}

// TestCommitBadFiles: files that do not match their manifest fail the
// commit and VerifyManifest, with the rank and the file named.
func TestCommitBadFiles(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(t *testing.T, dir string)
		want  string
	}{
		{"flipped byte", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "part-00001-00001.parquet")
			b, _ := os.ReadFile(p)
			b[100] ^= 1
			os.WriteFile(p, b, 0o644)
		}, "rank 1: part-00001-00001.parquet: SHA-256 "},
		{"truncated", func(t *testing.T, dir string) {
			os.Truncate(filepath.Join(dir, "part-00001-00002.parquet"), 100)
		}, "rank 1: part-00001-00002.parquet: 100 bytes, the manifest says "},
		{"missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "part-00001-00000.parquet"))
		}, "rank 1: part-00001-00000.parquet: listed in the manifest, but not in the directory"},
		{"unlisted", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "part-00001-00000.parquet"))
			os.WriteFile(filepath.Join(dir, "part-00001-00007.parquet"), b, 0o644)
		}, "rank 1: part-00001-00007.parquet is a data file of the rank that its manifest does not list"},
		{"rows", func(t *testing.T, dir string) {
			editManifest(t, dir, 1, `"rows": 400,`, `"rows": 401,`)
			editManifest(t, dir, 1, `"rows": 1000,`, `"rows": 1001,`)
		}, "rank 1: part-00001-00000.parquet: 400 rows, the manifest says 401"},
		{"first id", func(t *testing.T, dir string) {
			editManifest(t, dir, 1, `"first_id": "[0-9a-f]{32}"`, `"first_id": "0123456789abcdef0123456789abcdef"`)
		}, "rank 1: part-00001-00000.parquet: row IDs "},
		{"version", func(t *testing.T, dir string) {
			editManifest(t, dir, 1, `"version": 3,`, `"version": 2,`)
		}, "rank 1: manifest " + "%DIR%" + "/_manifest-00001.json: format version 2"},
		{"wrong rank", func(t *testing.T, dir string) {
			editManifest(t, dir, 1, `"rank": 1,`, `"rank": 2,`)
		}, "rank 1: manifest %DIR%/_manifest-00001.json is the manifest of rank 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := threeRanks(t, shards.RowIDColumn("rid"))
			c.spoil(t, dir)
			want := strings.ReplaceAll(c.want, "%DIR%", dir)
			_, err := shards.Commit(dir, 3)
			wantErr(t, err, `shards: Commit("`+dir+`"): `+want)
			_, err = shards.VerifyManifest(dir, 1)
			wantErr(t, err, `shards: VerifyManifest("`+dir+`"): `+want)
			if _, err := shards.VerifyManifest(dir, 0); err != nil {
				t.Errorf("rank 0: %v", err)
			}
		})
	}
}

// editManifest replaces the first match of the regular expression old in
// rank's manifest with new.
func editManifest(t *testing.T, dir string, rank int, old, new string) {
	t.Helper()
	p := filepath.Join(dir, shards.ManifestName(rank))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	loc := regexp.MustCompile(old).FindIndex(b)
	if loc == nil {
		t.Fatalf("the manifest has no %q", old)
	}
	b = slices.Concat(b[:loc[0]], []byte(new), b[loc[1]:])
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := shards.Reseal(p); err != nil {
		t.Fatal(err)
	}
}

// sha256Hex returns the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestCommitOtherSchema: ranks that wrote different schemas or options do
// not form one dataset.
func TestCommitOtherSchema(t *testing.T) {
	dir := t.TempDir()
	shareJob(t, dir, 0, 2, []int64{0})
	shareJob(t, dir, 1, 2, []int64{1}, shards.RowIDColumn("rid"))
	_, err := shards.Commit(dir, 2)
	wantErr(t, err, "rank 1 wrote another schema than rank 0")

	dir = t.TempDir()
	rows := []hiveRow{{Key: "a", Seq: 0}, {Key: "b", Seq: 1}}
	for r, opts := range [][]shards.ParquetOption{{shards.PartitionBy("key")}, nil} {
		if err := flow.From(sources.Slice(rows)).WithRank(r, 2).To(shards.Parquet[hiveRow](dir, opts...)).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	_, err = shards.Commit(dir, 2)
	wantErr(t, err, `rank 1 is partitioned by [], rank 0 by ["key"]`)
}

// TestCommitStaleTemporary: a temporary file of the dataset manifest that
// a killed commit left is removed, and the commit rewrites a stale
// dataset manifest.
func TestCommitStaleTemporary(t *testing.T) {
	dir := threeRanks(t)
	stale := filepath.Join(dir, "."+shards.DatasetManifestName+".tmp-abc")
	if err := os.WriteFile(stale, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, shards.DatasetManifestName), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := shards.Commit(dir, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the stale temporary file is still there")
	}
	if _, err := shards.ReadDatasetManifest(dir); err != nil {
		t.Fatal(err)
	}
}

// TestCommitWorld: every rank's manifest records the world of the run that
// wrote it (WithRank; 1 without it), and Commit refuses a rank written for
// another world than the one committed, larger or smaller, for Parquet and
// JSON Lines shards alike.
func TestCommitWorld(t *testing.T) {
	run := func(dir string, rank, world int, jsonl bool) error {
		t.Helper()
		p := flow.From(sources.Slice(pqRows(3000), sources.PartitionItems(500)))
		if world > 0 {
			p = p.WithRank(rank, world)
		}
		if jsonl {
			return p.To(shards.JSONL[pqRow](dir)).Run(context.Background())
		}
		return p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(400))).Run(context.Background())
	}
	for _, jsonl := range []bool{false, true} {
		dir := t.TempDir()
		if err := run(dir, 0, 0, jsonl); err != nil {
			t.Fatal(err)
		}
		m, err := shards.ReadManifest(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m.World != 1 {
			t.Errorf("jsonl %t: manifest of a run without WithRank records world %d, want 1", jsonl, m.World)
		}
		if _, err := shards.Commit(dir, 1); err != nil {
			t.Fatalf("jsonl %t: committing the world of 1: %v", jsonl, err)
		}

		dir = t.TempDir()
		if err := run(dir, 0, 1, jsonl); err != nil {
			t.Fatal(err)
		}
		if err := run(dir, 1, 2, jsonl); err != nil {
			t.Fatal(err)
		}
		_, err = shards.Commit(dir, 2)
		wantErr(t, err, "rank 0 was written as rank 0 of 1 (_manifest-00000.json records world 1), not as a rank of the world of 2 being committed")
		if _, err := os.Stat(filepath.Join(dir, shards.DatasetManifestName)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatal("a failed commit wrote the dataset manifest")
		}

		dir = t.TempDir()
		if err := run(dir, 0, 4, jsonl); err != nil {
			t.Fatal(err)
		}
		_, err = shards.Commit(dir, 1)
		wantErr(t, err, "rank 0 was written as rank 0 of 4 (_manifest-00000.json records world 4), not as a rank of the world of 1 being committed")

		// Two ranks of a world of 2 divide the slice between them.
		dir = t.TempDir()
		for r := range 2 {
			if err := run(dir, r, 2, jsonl); err != nil {
				t.Fatal(err)
			}
			m, err := shards.ReadManifest(dir, r)
			if err != nil {
				t.Fatal(err)
			}
			if m.World != 2 || m.Rows != 1500 {
				t.Errorf("jsonl %t: rank %d of 2: world %d, %d rows; want 2, 1500", jsonl, r, m.World, m.Rows)
			}
		}
		dm, err := shards.Commit(dir, 2)
		if err != nil || dm.World != 2 || dm.Rows != 3000 {
			t.Fatalf("jsonl %t: two ranks of 2: %v, %+v", jsonl, err, dm)
		}
	}
	dir := t.TempDir()
	wantErr(t, run(dir, 2, 2, false), "WithRank(2, 2): need 0 <= rank < world")
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("a refused run left %d entries (%v)", len(entries), err)
	}
}
