package shards_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// contJob writes pqRows(3000) in files of 450 rows, with Continue: it
// continues the run recorded in dir, if there is one.
func contJob(dir string, opts ...shards.ParquetOption) error {
	p := pqPipeline(pqRows(3000), 2, sources.PartitionItems(400), sources.ChunkSize(100))
	opts = append([]shards.ParquetOption{shards.RowsPerFile(450), shards.Continue()}, opts...)
	return p.To(shards.Parquet[pqRow](dir, opts...)).Run(context.Background())
}

// snapshotAt runs contJob in a fresh directory and returns a copy of the
// directory as it was at the n-th step named step: what a run killed
// there leaves. It also returns the directory of the complete run.
func snapshotAt(t *testing.T, step string, n int) (snap, done string) {
	t.Helper()
	done, snap = t.TempDir(), t.TempDir()
	seen := 0
	restore := shards.SetFSStep(func(s string) {
		if s != step {
			return
		}
		if seen++; seen != n {
			return
		}
		for rel, b := range readTree(t, done) {
			p := filepath.Join(snap, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	defer restore()
	if err := contJob(done); err != nil {
		t.Fatal(err)
	}
	if seen < n {
		t.Fatalf("the run passed %q %d times, want %d", step, seen, n)
	}
	return snap, done
}

// TestContinue: a run killed after its k-th file, for each k, continues
// from the sink's record, writes only the files after the k-th, and ends
// with the output of an uninterrupted run. Files end 50 rows into the
// first chunk of a partition (a checkpoint moved into the next
// partition), at a chunk's end (recorded at the next chunk) and inside a
// later chunk of a partition: the record holds the position before the
// chunk and the rows of it that the files hold.
func TestContinue(t *testing.T) {
	const files = 7 // 3000 rows in files of 450
	// Each file but the last ends after rows 450, 900, ..., which lie
	// 50, 0, 50, 0, ... rows into a chunk of 100.
	for k := 1; k < files; k++ {
		snap, done := snapshotAt(t, "progress renamed", k)
		want := readTree(t, done)
		if _, _, ok, err := shards.Continuation(done, 0); ok || err != nil {
			t.Fatalf("Continuation of a committed rank: %t, %v", ok, err)
		}
		_, skip, ok, err := shards.Continuation(snap, 0)
		if err != nil || !ok {
			t.Fatalf("Continuation after %d files: %t, %v", k, ok, err)
		}
		if want := int64(450 * k % 100); skip != want {
			t.Errorf("after %d files: the record skips %d rows of the chunk after its position, want %d", k, skip, want)
		}
		var created []string
		restore := shards.SetFSStep(func(s string) {
			if name, ok := strings.CutPrefix(s, "created part-00000-"); ok {
				created = append(created, name)
			}
		})
		err = contJob(snap)
		restore()
		if err != nil {
			t.Fatalf("continuing after %d files: %v", k, err)
		}
		var wantCreated []string
		for i := k; i < files; i++ {
			wantCreated = append(wantCreated, fmt.Sprintf("%05d.parquet", i))
		}
		if !equalStrings(created, wantCreated) {
			t.Errorf("continuing after %d files wrote %q, want %q", k, created, wantCreated)
		}
		if got := readTree(t, snap); !maps.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("continuing after %d files: the output differs from an uninterrupted run's: %q", k, sortedKeys(got))
		}
	}
}

// TestContinueMisuse: a run with Continue that finds a record and was
// resumed too fails, and keeps the record and its files, from which a
// run then continues; a run without Continue starts over, removing them;
// Continue needs one writer.
func TestContinueMisuse(t *testing.T) {
	snap, done := snapshotAt(t, "progress renamed", 2)
	want := readTree(t, done)
	ck, skip, _, _ := shards.Continuation(snap, 0)
	p := pqPipeline(pqRows(3000), 2, sources.PartitionItems(400), sources.ChunkSize(100)).Resume(flow.At(0, 900))
	err := p.To(shards.Parquet[pqRow](snap, shards.RowsPerFile(450), shards.Continue())).Run(context.Background())
	wantErr(t, err, "continues the run it recorded, and the pipeline was resumed too (Resume): say where the run starts once")
	again, againSkip, ok, err := shards.Continuation(snap, 0)
	if a, b := mustJSON(t, again), mustJSON(t, ck); err != nil || !ok || a != b || againSkip != skip {
		t.Fatalf("after the refused run, Continuation gives %s, %d, %t, %v; before, %s, %d", a, againSkip, ok, err, b, skip)
	}
	if err := contJob(snap); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, snap); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("the continued run left %q", sortedKeys(got))
	}

	snap, _ = snapshotAt(t, "progress renamed", 2)
	if err := pqPipeline(pqRows(3000), 2, sources.PartitionItems(400), sources.ChunkSize(100)).
		To(shards.Parquet[pqRow](snap, shards.RowsPerFile(450))).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, snap); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("the run that started over left %q", sortedKeys(got))
	}

	wantErr(t, pqPipeline(pqRows(10), 1).To(shards.Parquet[pqRow](t.TempDir(), shards.Continue(), shards.Writers(2))).Err(),
		"Continue works with one writer and no PartitionBy")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func sortedKeys(m map[string][]byte) []string {
	var ks []string
	for k := range maps.Keys(m) {
		ks = append(ks, k)
	}
	return ks
}
