//go:build unix

package shards_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// crashWorld is the number of ranks of the crash test's job.
const crashWorld = 2

// crashReport, when set, is told of every 300th row of the crash job's
// input.
var crashReport func(event string)

// crashJob runs rank rank of the crash test's job into dir: 6000 rows,
// each rank keeping the rows whose ID it owns, through two workers and a
// shuffle buffer of 300 rows (a stage the checkpoints of Continue go
// through), into files of 710 rows with the row-ID column: files end inside chunks, the
// first chunk of a partition among them. With cont, rank 1 writes with
// one writer and Continue, and resumes from the sink's Continuation if
// there is one; otherwise with two writers, starting over.
func crashJob(dir string, rank int, cont bool) error {
	p := flow.From(everyRank(sources.Slice(pqRows(6000), sources.PartitionItems(400), sources.ChunkSize(100)))).
		Via(operators.Map(func(r pqRow) (pqRow, error) {
			if crashReport != nil && r.ID%300 == 0 {
				crashReport("row " + strconv.FormatInt(r.ID, 10))
			}
			return r, nil
		})).Parallel(2).
		Via(operators.Filter(func(r pqRow) bool { return int(r.ID%crashWorld) == rank })).
		Via(operators.Shuffle[pqRow](300)).
		WithRank(rank, crashWorld)
	opts := []shards.ParquetOption{shards.Writers(2), shards.RowsPerFile(710),
		shards.RowGroupRows(250), shards.RowIDColumn("rid")}
	if cont && rank == 1 {
		opts = append(opts, shards.Writers(1), shards.Continue())
	}
	return p.To(shards.Parquet[pqRow](dir, opts...)).Run(context.Background())
}

// crashSeed returns the seed that chooses the kill points:
// ROWFLOW_CRASH_SEED if set, 1 otherwise.
func crashSeed(t *testing.T) uint64 {
	s := os.Getenv("ROWFLOW_CRASH_SEED")
	if s == "" {
		return 1
	}
	seed, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("ROWFLOW_CRASH_SEED=%q: %v", s, err)
	}
	return seed
}

// TestKilledJobCompletes runs rank 1 of a two-rank job in a child process
// and kills it with SIGKILL at 20 points chosen from a seed among the
// events of an uninterrupted run (every 300th input row, the creation of
// each temporary file, each rename of the commit, the manifest's steps).
// At some points the rerun is killed too. After each kill, every file of
// the rank under a final name is one of an uninterrupted run's, byte for
// byte; a rerun then completes the output without Overwrite, and the
// directory, both ranks' files and manifests and the dataset manifest of
// Commit, is byte-identical to that of an uninterrupted run.
//
// In "restart", the reruns start over; in "continue", the sink records
// its progress (Continue), and a rerun resumes the pipeline from the
// sink's Continuation and writes only the files not completed before.
func TestKilledJobCompletes(t *testing.T) {
	longtest.Require(t)
	if testing.Short() {
		t.Skip("runs child processes")
	}
	seed := crashSeed(t)
	t.Logf("seed %d (set ROWFLOW_CRASH_SEED to choose another)", seed)
	for _, cont := range []bool{false, true} {
		name := map[bool]string{false: "restart", true: "continue"}[cont]
		t.Run(name, func(t *testing.T) { testKilledJob(t, seed, cont) })
	}
}

func testKilledJob(t *testing.T, seed uint64, cont bool) {
	ref := t.TempDir()
	if err := crashJob(ref, 0, cont); err != nil {
		t.Fatal(err)
	}
	events, killed := runCrashChild(t, ref, "", cont)
	if killed {
		t.Fatal("the uninterrupted child stopped")
	}
	want := readTree(t, ref)
	if _, err := shards.Commit(ref, crashWorld); err != nil {
		t.Fatal(err)
	}
	wantDataset := readTree(t, ref)[shards.DatasetManifestName]
	m, err := shards.ReadManifest(ref, 1)
	if err != nil {
		t.Fatal(err)
	}

	slices.Sort(events)
	if len(events) < 30 {
		t.Fatalf("the job reported %d events: %q", len(events), events)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	points := rng.Perm(len(events))[:20]
	continued := 0
	for i, k := range points {
		stop := events[k]
		t.Run(fmt.Sprintf("%02d %s", i, stop), func(t *testing.T) {
			dir := t.TempDir()
			for rel, b := range want {
				if strings.HasPrefix(rel, "part-00000-") || rel == shards.ManifestName(0) {
					if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, killed := runCrashChild(t, dir, stop, cont); !killed {
				t.Fatalf("the child passed %q without stopping", stop)
			}
			checkKilledOutput(t, dir, want)
			if rng.IntN(3) == 0 {
				// Kill the rerun too, wherever it gets to.
				again := events[rng.IntN(len(events))]
				_, killed := runCrashChild(t, dir, again, cont)
				t.Logf("rerun killed at %q: %t", again, killed)
				checkKilledOutput(t, dir, want)
			}
			kept := keptFiles(t, dir)
			var mu sync.Mutex // the writers' goroutines create files
			var created []string
			defer shards.SetFSStep(func(step string) {
				if name, ok := strings.CutPrefix(step, "created part-00001-"); ok {
					mu.Lock()
					created = append(created, name)
					mu.Unlock()
				}
			})()
			if err := crashJob(dir, 1, cont); err != nil {
				t.Fatalf("the rerun failed: %v", err)
			}
			if kept > 0 {
				continued++
			}
			if got := len(created); kept >= 0 && got != len(m.Files)-kept {
				t.Errorf("the rerun wrote %d files; with %d kept, want %d", got, kept, len(m.Files)-kept)
			}
			got := readTree(t, dir)
			if !maps.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("after the rerun the directory holds %q; an uninterrupted run's holds %q",
					slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			if _, err := shards.Commit(dir, crashWorld); err != nil {
				t.Fatal(err)
			}
			if b := readTree(t, dir)[shards.DatasetManifestName]; !bytes.Equal(b, wantDataset) {
				t.Fatalf("the dataset manifest differs from an uninterrupted run's:\n%s\nwant\n%s", b, wantDataset)
			}
		})
	}
	if cont {
		t.Logf("%d of 20 reruns continued from completed files", continued)
		if continued == 0 {
			t.Error("no rerun continued")
		}
	}
}

// keptFiles returns how many files a rerun of rank 1 in dir keeps: those
// of its progress record if it continues from one, none if it starts
// over, and -1 if the rank has committed (the rerun writes every file to
// check them).
func keptFiles(t *testing.T, dir string) int {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, shards.ManifestName(1))); err == nil {
		return -1
	}
	if _, _, ok, err := shards.Continuation(dir, 1); err != nil {
		t.Fatal(err)
	} else if !ok {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, ".progress-00001.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Files []json.RawMessage }
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return len(rec.Files)
}

// checkKilledOutput checks a directory whose rank 1 was killed: every
// file of rank 1 under a final name is the uninterrupted run's (only
// hidden temporary files may be partial, and the rank's lock file may be
// left), and a manifest of rank 1 is there only if all of its files are.
func checkKilledOutput(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	got := readTree(t, dir)
	for rel, b := range got {
		if strings.HasPrefix(rel, ".part-00001-") && strings.Contains(rel, ".parquet.tmp-") ||
			strings.HasPrefix(rel, "._manifest-00001.json.tmp-") || rel == ".rank-00001.lock" ||
			strings.HasPrefix(rel, ".progress-00001.json") || strings.HasPrefix(rel, "..progress-00001.json.tmp-") {
			continue
		}
		if w, ok := want[rel]; !ok || !bytes.Equal(b, w) {
			t.Fatalf("after the kill, %s is not a file of the uninterrupted run", rel)
		}
	}
	if _, ok := got[shards.ManifestName(1)]; ok {
		for rel := range want {
			if _, ok := got[rel]; !ok {
				t.Fatalf("after the kill, the manifest is there but %s is not", rel)
			}
		}
	}
}

// runCrashChild runs TestHelperCrashJob in a child process on dir, with
// Continue if cont, and,
// when the child reports that it reached the event stop, kills it with
// SIGKILL. It returns the events the child reported and whether it was
// killed; a child that fails otherwise fails t.
func runCrashChild(t *testing.T, dir, stop string, cont bool) (events []string, killed bool) {
	t.Helper()
	cmd, sc, out := testutil.StartChild(t, "TestHelperCrashJob", fmt.Sprint(cont)+"|"+dir+"|"+stop)
	for sc.Scan() {
		kind, ev, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "event":
			events = append(events, ev)
		case "stop":
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return events, false
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return events, true
		}
	}
	t.Fatalf("child stopping at %q: %v\n%s", stop, err, out.Bytes())
	return nil, false
}

// TestHelperCrashJob is the child of TestKilledJobCompletes: it runs rank
// 1 of the job, reports each event on file descriptor 3 and, at the event
// its parent names, says so and waits to be killed.
func TestHelperCrashJob(t *testing.T) {
	cont, rest, _ := strings.Cut(testutil.ChildArg(t), "|")
	dir, stop, _ := strings.Cut(rest, "|")
	events := os.NewFile(3, "events")
	var mu sync.Mutex
	report := func(ev string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(events, "event", ev)
		if ev == stop {
			fmt.Fprintln(events, "stop", ev)
			io.Copy(io.Discard, os.Stdin) // until the parent kills the process
			t.Errorf("not killed at %q", ev)
		}
	}
	defer shards.SetFSStep(report)()
	crashReport = report
	defer func() { crashReport = nil }()
	if err := crashJob(dir, 1, cont == "true"); err != nil {
		t.Fatal(err)
	}
}
