package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
)

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
	// rows dropped are only each rank's last partial batch.
	seen := map[rowid.ID]int{}
	epochs := map[int64]int{}
	for rank := range world {
		for it, err := range flow.Items[operators.Padded[int32]](t.Context(), loader(filepath.Join(dir, "docs"), rank, 2, nil)) {
			if err != nil {
				t.Fatal(err)
			}
			epochs[flow.EpochOf(it.Part)]++
			if flow.EpochOf(it.Part) != 0 {
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
