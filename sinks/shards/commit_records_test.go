package shards_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
)

// spoil rewrites the file at p with old replaced by new, once, without
// fixing its checksum: a record edited by hand or damaged.
func spoil(t *testing.T, p, old, new string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), old, new, 1)
	if s == string(b) {
		t.Fatalf("%s has no %q:\n%s", p, old, b)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies the file at from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRankManifestIntegrity: a rank's manifest edited by hand (a count,
// a field added, its checksum removed), or edited and sealed again with
// fields that do not agree, is refused by ReadManifest, VerifyManifest,
// Commit and a rerun of the rank, with the file and what is wrong named.
// (Before the fix, manifests had no checksum and the edits passed or were
// found only by reading the files.)
func TestRankManifestIntegrity(t *testing.T) {
	dir, _ := oneRank(t)
	man := filepath.Join(dir, shards.ManifestName(0))
	good := filepath.Join(t.TempDir(), "good")
	copyFile(t, man, good)
	for _, c := range []struct {
		name  string
		spoil func()
		want  string
	}{
		{"count", func() { spoil(t, man, `"rows": 3000,`, `"rows": 2999,`) }, "checksum sha256:"},
		{"no checksum", func() { editRaw(t, man, func(v map[string]any) { delete(v, "checksum") }) }, "no checksum: every record of this version has one"},
		{"empty checksum", func() { editRaw(t, man, func(v map[string]any) { v["checksum"] = "" }) }, "no checksum: every record of this version has one"},
		{"field added", func() { spoil(t, man, `"rows": 3000,`, `"rows": 3000, "extra": 1,`) }, `damaged or edited: json: unknown field "extra"`},
		{"damaged", func() { spoil(t, man, `"files": [`, `"files": [[`) }, "not a JSON record (damaged?)"},
		{"totals", func() {
			editRecord(t, man, func(v map[string]any) { v["rows"] = 2999 })
		}, "totals of 2999 rows and "},
		{"negative", func() {
			editRecord(t, man, func(v map[string]any) { entry(v, "files", 0)["bytes"] = -1 })
		}, "file 1 (path \"part-00000-00000.parquet\"): negative count: rows 400, bytes -1"},
		{"sha", func() {
			editRecord(t, man, func(v map[string]any) { entry(v, "files", 0)["sha256"] = "abc" })
		}, `file 1 (path "part-00000-00000.parquet"): SHA-256 "abc": want 64 hex digits`},
		{"world", func() {
			editRecord(t, man, func(v map[string]any) { v["world"] = 2_000_000_000 })
		}, "world 2000000000: must be from 1 to 65536"},
		{"world 0", func() {
			editRecord(t, man, func(v map[string]any) { v["world"] = 0 })
		}, "world 0: must be from 1 to 65536"},
		{"rank beyond world", func() {
			editRecord(t, man, func(v map[string]any) { v["world"] = 1; v["rank"] = 0; entry(v, "files", 0)["writer"] = 5 })
		}, "file 1 (path \"part-00000-00000.parquet\"): writer 5 of 1"},
		{"job", func() {
			editRecord(t, man, func(v map[string]any) { delete(v, "job") })
		}, `job "": want 32 hex digits`},
		{"old version", func() {
			editRecord(t, man, func(v map[string]any) { v["version"] = 2; delete(v, "checksum"); delete(v, "job") })
		}, "format version 2, but this version of rowflow reads only version 3"},
	} {
		copyFile(t, good, man)
		c.spoil()
		want := "manifest " + man + ": " + c.want
		_, err := shards.ReadManifest(dir, 0)
		wantErr(t, err, want)
		_, err = shards.VerifyManifest(dir, 0)
		wantErr(t, err, want)
		_, err = shards.Commit(dir, 1)
		wantErr(t, err, want)
		err = pqPipeline(pqRows(10), 1).To(shards.Parquet[pqRow](dir)).Run(t.Context())
		wantErr(t, err, "cannot check", want)
	}
	copyFile(t, good, man)
	if _, err := shards.Commit(dir, 1); err != nil {
		t.Fatal(err)
	}
}

// TestDatasetManifestIntegrity: a dataset manifest edited by hand is
// refused by ReadDatasetManifest, naming it and what is wrong; one sealed
// again with totals that do not add up, or a world beyond 65536, too. (Before the fix, ReadDatasetManifest returned the
// edited values.)
func TestDatasetManifestIntegrity(t *testing.T) {
	dir := threeRanks(t)
	if _, err := shards.Commit(dir, 3); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, shards.DatasetManifestName)
	good := filepath.Join(t.TempDir(), "good")
	copyFile(t, p, good)
	for _, c := range []struct {
		spoil func()
		want  string
	}{
		{func() { spoil(t, p, `"rows": 3000,`, `"rows": 3001,`) }, "checksum sha256:"},
		{func() { editRecord(t, p, func(v map[string]any) { v["rows"] = 3001 }) }, "totals of 9 files, 3001 rows and"},
		{func() { editRecord(t, p, func(v map[string]any) { v["world"] = 1 << 20 }) }, "world 1048576: must be from 1 to 65536"},
		{func() { editRecord(t, p, func(v map[string]any) { entry(v, "ranks", 1)["manifest"] = "../x.json" }) }, `rank entry 2: rank 1, manifest "../x.json"; want rank 1, _manifest-00001.json`},
		{func() { editRecord(t, p, func(v map[string]any) { v["version"] = 1; delete(v, "checksum") }) }, "format version 1, but this version of rowflow reads only version 2"},
	} {
		copyFile(t, good, p)
		c.spoil()
		_, err := shards.ReadDatasetManifest(dir)
		wantErr(t, err, "shards: dataset manifest "+p+": "+c.want)
	}
}

// TestProgressRecordIntegrity: a progress record edited by hand, or
// sealed again with fields that do not agree (a checkpoint of another
// pipeline, a position before any row, a file out of sequence), or of an
// older version, is refused by Continuation and by a continuing run,
// which name the record and what is wrong and leave the record and its
// files in place. (Before the fix, the edits were resumed from, or the
// record silently ignored.)
func TestProgressRecordIntegrity(t *testing.T) {
	snap, _ := snapshotAt(t, "progress renamed", 2)
	rec := filepath.Join(snap, ".progress-00000.json")
	good := filepath.Join(t.TempDir(), "good")
	copyFile(t, rec, good)
	before := readTree(t, snap)
	for _, c := range []struct {
		spoil func()
		want  string
	}{
		// An edit of the checkpoint is caught by the checkpoint's own
		// checksum, inside the record's.
		{func() { spoil(t, rec, `"delivered": `, `"delivered": 1`) }, "damaged or edited: flow: checkpoint: damaged or edited"},
		{func() { spoil(t, rec, `"rank": 0`, `"rank": 1`) }, "checksum sha256:"},
		{func() { editRecord(t, rec, func(v map[string]any) { v["skip"] = -3 }) }, "it skips -3 rows"},
		{func() { editRecord(t, rec, func(v map[string]any) { entry(v, "files", 1)["seq"] = 7 }) }, "file 2: writer 0 and sequence number 7"},
		{func() { editRecord(t, rec, func(v map[string]any) { v["files"] = []any{} }) }, "it lists no file"},
		{func() { editRecord(t, rec, func(v map[string]any) { v["rank"] = 3 }) }, "it is the record of rank 3"},
		{func() { editRecord(t, rec, func(v map[string]any) { v["version"] = 1; delete(v, "checksum") }) }, "format version 1, but this version of rowflow continues only from version 3"},
	} {
		copyFile(t, good, rec)
		c.spoil()
		want := "progress record " + rec + ": " + c.want
		_, _, _, err := shards.Continuation(snap, 0)
		wantErr(t, err, want, "remove it to start the rank over")
		wantErr(t, contJob(snap), want)
		after := readTree(t, snap)
		for name := range before {
			if _, ok := after[name]; !ok && name != ".rank-00000.lock" {
				t.Errorf("%s: the refused run removed %s", c.want, name)
			}
		}
	}
	copyFile(t, good, rec)
	if err := contJob(snap); err != nil {
		t.Fatal(err)
	}
}
