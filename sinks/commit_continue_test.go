package sinks_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// contJob writes pqRows(3000) in files of 450 rows, with Continue, and
// resumes from the sink's Continuation if resume and there is one.
func contJob(dir string, resume bool, opts ...sinks.ParquetOption) error {
	t := new(flow.Tracker)
	p := pqPipeline(pqRows(3000), 2, sources.PartitionItems(400), sources.ChunkSize(100)).Checkpoints(t)
	if resume {
		ck, ok, err := sinks.Continuation(dir, 0)
		if err != nil {
			return err
		}
		if ok {
			p = p.Resume(ck)
		}
	}
	opts = append([]sinks.ParquetOption{sinks.RowsPerFile(450), sinks.Continue(t)}, opts...)
	return p.To(sinks.ParquetShards[pqRow](dir, opts...)).Run(context.Background())
}

// snapshotAt runs contJob in a fresh directory and returns a copy of the
// directory as it was at the n-th step named step: what a run killed
// there leaves. It also returns the directory of the complete run.
func snapshotAt(t *testing.T, step string, n int) (snap, done string) {
	t.Helper()
	done, snap = t.TempDir(), t.TempDir()
	seen := 0
	restore := sinks.SetFSStep(func(s string) {
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
	if err := contJob(done, false); err != nil {
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
// later chunk of a partition.
func TestContinue(t *testing.T) {
	const files = 7 // 3000 rows in files of 450
	// Where each file but the last ends: after rows 450, 900, ..., in
	// partitions of 400 rows.
	at := [][2]int64{{1, 50}, {2, 100}, {3, 150}, {4, 200}, {5, 250}, {6, 300}}
	for k := 1; k < files; k++ {
		snap, done := snapshotAt(t, "progress renamed", k)
		want := readTree(t, done)
		if _, ok, err := sinks.Continuation(done, 0); ok || err != nil {
			t.Fatalf("Continuation of a committed rank: %t, %v", ok, err)
		}
		ck, ok, err := sinks.Continuation(snap, 0)
		if err != nil || !ok {
			t.Fatalf("Continuation after %d files: %t, %v", k, ok, err)
		}
		if ck.Part != at[k-1][0] || ck.Delivered != at[k-1][1] {
			t.Errorf("after %d files: checkpoint at partition %d, %d delivered; want %d", k, ck.Part, ck.Delivered, at[k-1])
		}
		var created []string
		restore := sinks.SetFSStep(func(s string) {
			if name, ok := strings.CutPrefix(s, "created part-00000-"); ok {
				created = append(created, name)
			}
		})
		err = contJob(snap, true)
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

// TestContinueMisuse: a run with Continue that finds a record but was not
// resumed fails, and keeps the record and its files, from which a resumed
// run then continues; a run without Continue starts over, removing them;
// Continue needs one writer and a tracker that follows the run.
func TestContinueMisuse(t *testing.T) {
	snap, done := snapshotAt(t, "progress renamed", 2)
	want := readTree(t, done)
	ck, _, _ := sinks.Continuation(snap, 0)
	err := contJob(snap, false)
	wantErr(t, err, "the run does not continue where .progress-00000.json says: its first row is ")
	if again, ok, err := sinks.Continuation(snap, 0); err != nil || !ok || again.Part != ck.Part || again.Delivered != ck.Delivered {
		t.Fatalf("after the refused run, Continuation gives %+v, %t, %v; before, %+v", again, ok, err, ck)
	}
	if err := contJob(snap, true); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, snap); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("the continued run left %q", sortedKeys(got))
	}

	snap, _ = snapshotAt(t, "progress renamed", 2)
	if err := pqPipeline(pqRows(3000), 2, sources.PartitionItems(400), sources.ChunkSize(100)).
		To(sinks.ParquetShards[pqRow](snap, sinks.RowsPerFile(450))).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, snap); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("the run that started over left %q", sortedKeys(got))
	}

	p := pqPipeline(pqRows(10), 1)
	wantErr(t, p.To(sinks.ParquetShards[pqRow](t.TempDir(), sinks.Continue(new(flow.Tracker)), sinks.Writers(2))).Err(),
		"Continue works with one writer and no PartitionBy")
	wantErr(t, p.To(sinks.ParquetShards[pqRow](t.TempDir(), sinks.Continue(nil))).Err(), "Continue(nil)")
	// A tracker that does not follow the run.
	err = pqPipeline(pqRows(1000), 1).To(sinks.ParquetShards[pqRow](t.TempDir(), sinks.RowsPerFile(300), sinks.Continue(new(flow.Tracker)))).Run(context.Background())
	wantErr(t, err, "Continue: flow: Tracker.Checkpoint: no run was started with this tracker")
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
