package operators_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// stepsDataset writes n rows as one Parquet file of row groups of 70.
func stepsDataset(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	rows := make([]rankRow, n)
	for i := range rows {
		rows[i] = rankRow{N: int64(i), Text: strings.Repeat("y", i%13)}
	}
	testutil.WriteParquet(t, filepath.Join(dir, "a.parquet"), rows, 70)
	return dir
}

// batchesPerEpoch returns how many items each epoch of p gives.
func batchesPerEpoch[T any](t *testing.T, p *flow.Pipeline) map[int64]int {
	t.Helper()
	got := map[int64]int{}
	for _, it := range testutil.Items[T](t, p) {
		got[it.Epoch()]++
	}
	return got
}

// TestBatchGivesEqualSteps: 2,001 rows on two ranks are 1,001 and 1,000
// rows, which Batch(100) would make 10 and 11 batches; every rank gives
// 10 in each epoch, with a Map between, and with DropRemainder (1,000 and
// 1,001 rows: 10 and 10). Through a Filter the counts are not known and
// nothing is dropped.
func TestBatchGivesEqualSteps(t *testing.T) {
	dir := stepsDataset(t, 2001)
	build := func(rank int, via []flow.Stage, opts ...operators.BatchOption) *flow.Pipeline {
		p := flow.From(parquet.Read[rankRow](dir)).Epochs(2).Parallel(2)
		for _, s := range via {
			p = p.Via(s).Parallel(2)
		}
		return p.Via(operators.Batch[rankRow](100, opts...)).WithRank(rank, 2)
	}
	id := operators.Map(func(r rankRow) (rankRow, error) { return r, nil })
	for _, c := range []struct {
		name string
		via  []flow.Stage
		opts []operators.BatchOption
		want [2]int
	}{
		{"batch", nil, nil, [2]int{10, 10}},
		{"map", []flow.Stage{id}, nil, [2]int{10, 10}},
		{"drop", nil, []operators.BatchOption{operators.DropRemainder()}, [2]int{10, 10}},
		{"filter", []flow.Stage{operators.Filter(func(rankRow) bool { return true })}, nil, [2]int{10, 11}},
	} {
		for rank := range 2 {
			got := batchesPerEpoch[operators.Rows[rankRow]](t, build(rank, c.via, c.opts...))
			if got[0] != c.want[rank] || got[1] != c.want[rank] {
				t.Errorf("%s, rank %d: batches per epoch %v, want %d in each of 2", c.name, rank, got, c.want[rank])
			}
		}
	}
	// The account of rank 1: one batch of one row dropped in each epoch.
	var acct operators.StepAccount
	batchesPerEpoch[operators.Rows[rankRow]](t, build(1, nil, operators.Steps(0, &acct)))
	if acct != (operators.StepAccount{PerEpoch: 10, Dropped: 2, Rows: 2}) {
		t.Errorf("rank 1's account %+v, want 10 per epoch, 2 batches of 1 row dropped", acct)
	}
	// Stages without Steps keep the fingerprints they had before it.
	fp := flow.From(sources.Slice([]int{1, 2, 3})).Via(operators.Batch[int](2)).Fingerprint()
	if fp != batchFingerprint {
		t.Errorf("a pipeline with Batch(2) has fingerprint %s, want %s as before Steps", fp, batchFingerprint)
	}
	// One rank: nothing is dropped.
	if got := batchesPerEpoch[operators.Rows[rankRow]](t, flow.From(parquet.Read[rankRow](dir)).Via(operators.Batch[rankRow](100))); got[0] != 21 {
		t.Errorf("one rank: %v batches, want 21", got)
	}
}

// TestStepsForBucketing: BucketByLength with Steps(n) gives n batches an
// epoch on every rank; a rank that has fewer fails the run naming the
// epoch and the counts.
func TestStepsForBucketing(t *testing.T) {
	dir := stepsDataset(t, 3000)
	build := func(rank int, n int64) *flow.Pipeline {
		return flow.From(parquet.Read[rankRow](dir)).Epochs(2).
			Via(operators.BucketByLength(func(r rankRow) int { return len(r.Text) },
				operators.Buckets([]int{4, 8}, []int{40, 30, 20}), operators.Steps(n, nil))).WithRank(rank, 3)
	}
	for rank := range 3 {
		got := batchesPerEpoch[operators.Rows[rankRow]](t, build(rank, 30))
		if got[0] != 30 || got[1] != 30 {
			t.Errorf("rank %d: batches per epoch %v, want 30 in each", rank, got)
		}
	}
	for _, err := range flow.Items[operators.Rows[rankRow]](context.Background(), build(1, 1000)) {
		if err != nil {
			if !strings.Contains(err.Error(), "epoch 0 gave") || !strings.Contains(err.Error(), "fewer than Steps(1000)") {
				t.Fatalf("too many steps: %v", err)
			}
			return
		}
	}
	t.Fatal("an epoch with fewer batches than Steps did not fail")
}

// TestEqualStepsResume: a run whose Batch drops its surplus resumes from
// every checkpoint to the exact rest, at any parallelism.
func TestEqualStepsResume(t *testing.T) {
	dir := stepsDataset(t, 401)
	got := matrixResume[operators.Rows[rankRow]](t, func(par int) *flow.Pipeline {
		return flow.From(parquet.Read[rankRow](dir, parquet.MaxRows(30))).Epochs(2).Parallel(par).
			Via(operators.Batch[rankRow](20, operators.PartitionItems(3))).WithRank(0, 2)
	}, matrixOpts{stops: 4, min: 10})
	if len(got) != 20 {
		t.Fatalf("rank 0 of 201 rows gave %d batches in two epochs, want 20 (10 each)", len(got))
	}
}

// batchFingerprint is the fingerprint of
// flow.From(sources.Slice([]int{1, 2, 3})).Via(operators.Batch[int](2)) as
// computed before Steps existed.
const batchFingerprint = "e2dfcad3c6bb925f3b281ca6f6fa23ae"
