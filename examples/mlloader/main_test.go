package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
)

// TestMain runs main, in a child process of the test, when MLLOADER_MAIN
// holds its arguments.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("MLLOADER_MAIN"); ok {
		os.Args = append([]string{"mlloader"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestMLLoader(t *testing.T) {
	const n = 6001 // the even split drops the last row
	dir := t.TempDir()
	reports, err := run(context.Background(), io.Discard, n, 3, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Each rank has half the rows and, per epoch, every full batch of them.
	for rank, r := range reports {
		if r.Rows != n/world || r.Batches != [epochs]int{n / world / batchSize, n / world / batchSize} {
			t.Errorf("rank %d: %d rows, batches %v", rank, r.Rows, r.Batches)
		}
		if a := r.Account; a.Total != n || a.Dropped != [2]int64{n - 1, n} || len(a.Repeated) != 0 {
			t.Errorf("rank %d: account %+v, want the last of %d rows dropped", rank, a, n)
		}
		if r.Tokens == 0 || r.Padded < r.Tokens {
			t.Errorf("rank %d: %d tokens, %d with padding", rank, r.Tokens, r.Padded)
		}
	}
	if reports[0].Sum == reports[1].Sum {
		t.Error("both ranks have the same stream")
	}
	// Over both ranks, an epoch delivers every row at most once; and the
	// rows dropped are only each rank's last partial batch. Each row of a
	// batch is the document of its id column: its label, its tokens.
	seen := map[rowid.ID]int{}
	epochs := map[int64]int{}
	for rank := range world {
		for it, err := range flow.Items[operators.Collated](t.Context(), loader(filepath.Join(dir, "docs-6001"), rank, 2, nil)) {
			if err != nil {
				t.Fatal(err)
			}
			checkBatch(t, it.Value)
			epochs[it.Epoch()]++
			if it.Epoch() != 0 {
				continue
			}
			for _, id := range it.Value.IDs {
				seen[id]++
			}
		}
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("row %v delivered %d times in epoch 0", id, k)
		}
	}
	if want := world * (n / world / batchSize) * batchSize; len(seen) != want {
		t.Errorf("epoch 0 delivered %d rows, want %d", len(seen), want)
	}
	if epochs[0] != epochs[1] || len(epochs) != 2 {
		t.Errorf("batches per epoch: %v", epochs)
	}
}

// A size too small for a batch on each rank, or a number of workers that
// the pipeline cannot use, is an error that says so, from run and, with
// exit code 2, from the command, before anything is written.
func TestMLLoaderFlags(t *testing.T) {
	for _, c := range []struct {
		n, workers int
		msg        string
	}{
		{-5, 2, "-n -5: must be at least 64, a batch of 32 for each of 2 ranks"},
		{0, 2, "-n 0: must be at least 64, a batch of 32 for each of 2 ranks"},
		{63, 2, "-n 63: must be at least 64, a batch of 32 for each of 2 ranks"},
		{100, 0, "-workers 0: must be at least 1"},
		{100, -3, "-workers -3: must be at least 1"},
		{100, 70000, `-workers 70000: flow: Parallel(70000) on stage "slice": at most 65536 workers`},
	} {
		dir := t.TempDir()
		_, err := run(context.Background(), io.Discard, c.n, c.workers, dir)
		if err == nil || err.Error() != c.msg {
			t.Errorf("run with -n %d -workers %d: %v, want %s", c.n, c.workers, err, c.msg)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("run with -n %d -workers %d wrote %v", c.n, c.workers, entries)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("MLLOADER_MAIN=-n %d -workers %d -dir %s", c.n, c.workers, dir))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		var exit *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 2 || stderr.String() != "mlloader: "+c.msg+"\n" {
			t.Errorf("mlloader -n %d -workers %d: %v, %q; want exit 2 and %s", c.n, c.workers, err, stderr.String(), c.msg)
		}
	}
}

// Runs in one directory with other sizes each write their own dataset,
// and a run again with a size reads what it wrote before; files that
// mlloader did not write stay as they are.
func TestMLLoaderRerunInOneDirectory(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "docs", "keep.txt")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	sums := map[int]string{}
	for _, n := range []int{301, 501, 301} {
		reports, err := run(context.Background(), io.Discard, n, 2, dir)
		if err != nil {
			t.Fatalf("run with -n %d after others in %s: %v", n, dir, err)
		}
		if reports[0].Account.Total != int64(n) {
			t.Errorf("run with -n %d read %d rows", n, reports[0].Account.Total)
		}
		sum := reports[0].Sum.String() + reports[1].Sum.String()
		if old, ok := sums[n]; ok && old != sum {
			t.Errorf("-n %d gave other streams the second time", n)
		}
		sums[n] = sum
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("docs/keep.txt: %q, %v; want it kept", b, err)
	}
}

// checkBatch checks that a batch has the columns of Doc, and that row i of
// each column belongs to the document of row i of the id column.
func checkBatch(t *testing.T, b operators.Collated) {
	t.Helper()
	var names []string
	for _, c := range b.Columns {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"id", "label", "input_ids"}) {
		t.Fatalf("columns %v, want id, label and input_ids", names)
	}
	docIDs, labels, toks := b.Columns[0], b.Columns[1], b.Columns[2]
	width := toks.Shape[1]
	if len(b.IDs) != batchSize || !slices.Equal(docIDs.Shape, []int{batchSize}) || !slices.Equal(labels.Shape, []int{batchSize}) ||
		toks.Shape[0] != batchSize || width%8 != 0 {
		t.Fatalf("%d IDs, shapes %v %v %v: want %d rows and a width a multiple of 8", len(b.IDs), docIDs.Shape, labels.Shape, toks.Shape, batchSize)
	}
	for i, id := range docIDs.Data.([]int64) {
		d, _ := doc(id)
		d, _ = tokenize(d)
		row := toks.Data.([]int32)[i*width : (i+1)*width]
		if labels.Data.([]int32)[i] != d.Label || int(toks.Lengths[i]) != len(d.Tokens) ||
			!slices.Equal(row[:len(d.Tokens)], d.Tokens) || slices.ContainsFunc(row[len(d.Tokens):], func(v int32) bool { return v != 0 }) {
			t.Fatalf("row %d of a batch (document %d): label %d, tokens %v; want %d, %v", i, id, labels.Data.([]int32)[i], row, d.Label, d.Tokens)
		}
	}
}
