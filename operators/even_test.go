package operators_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

func TestEvenRanks(t *testing.T) {
	for _, world := range []int{2, 4} {
		for _, policy := range []uneven{dropUneven, padUneven, allowUneven} {
			t.Run(fmt.Sprintf("%d ranks %v", world, policy), func(t *testing.T) { checkEvenRanks(t, 1003, world, policy) })
		}
	}
	// Fewer rows than half the ranks: under PadUneven a row is repeated by
	// several ranks, as the account says. No rows at all: a total known to
	// be 0 (the account once said unknown, the source having no
	// partitions to count).
	for _, c := range []struct{ rows, world int }{{1, 3}, {2, 5}, {3, 4}, {0, 2}} {
		for _, policy := range []uneven{dropUneven, padUneven} {
			t.Run(fmt.Sprintf("%d rows %d ranks %v", c.rows, c.world, policy), func(t *testing.T) { checkEvenRanks(t, c.rows, c.world, policy) })
		}
	}
}

// checkEvenRanks checks EvenRanks over rows rows on world ranks: each
// rank's items are the same at every parallelism, the ranks deliver the
// same number of rows and batches (except under AllowUneven), and
// together every row as many times as the account says.
func checkEvenRanks(t *testing.T, rows, world int, policy uneven) {
	checkEvenRanksOf(t, rows, 37, 16, world, policy)
}

// checkEvenRanksOf is checkEvenRanks over a source of partitions of
// partition rows, in chunks of chunk.
func checkEvenRanksOf(t *testing.T, rows, partition, chunk, world int, policy uneven) {
	const size = 8
	seen := map[rowid.ID]int{}
	batches := map[int]int{}
	for rank := range world {
		var acct operators.EvenAccount
		// Runs that go on at once must not share the account.
		withAccount := func(n int, acct *operators.EvenAccount) *flow.Pipeline {
			return flow.From(operators.EvenRanks(source(int64(rows), partition, chunk), acct, evenOptions(policy)...)).Parallel(n).WithRank(rank, world).
				Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(n)
		}
		build := func(n int) *flow.Pipeline { return withAccount(n, nil) }
		verify[int64](t, build)
		ref := collect[int64](t, withAccount(1, &acct))
		for _, it := range ref {
			seen[it.ID]++
		}
		batches[rank] = len(collect[operators.Rows[int64]](t, build(3).Via(operators.Batch[int64](size, operators.DropRemainder()))))
		if acct.Total != int64(rows) {
			t.Fatalf("account total %d, want %d", acct.Total, rows)
		}
		switch policy {
		case dropUneven, padUneven:
			if int64(len(ref)) != acct.PerRank {
				t.Fatalf("rank %d: %d rows, the account says %d", rank, len(ref), acct.PerRank)
			}
		}
		t.Logf("rank %d: %d rows, %d batches; account %+v", rank, len(ref), batches[rank], acct)
	}
	for rank := range world {
		if policy != allowUneven && batches[rank] != batches[0] {
			t.Fatalf("rank %d has %d batches, rank 0 has %d", rank, batches[rank], batches[0])
		}
	}
	// Coverage: row i appears once, except what the account says.
	var acct operators.EvenAccount
	collect[int64](t, flow.From(operators.EvenRanks(source(int64(rows), partition, chunk), &acct, evenOptions(policy)...)).WithRank(0, world))
	repeats := map[int64]int{}
	for _, pos := range acct.Repeated {
		repeats[pos]++
	}
	for i := range int64(rows) {
		want := 1 + repeats[i]
		if policy == dropUneven && i >= acct.Dropped[0] {
			want = 0
		}
		if got := seen[sourceID(i)]; got != want {
			t.Fatalf("row %d delivered %d times, want %d (account %+v)", i, got, want, acct)
		}
	}
}

// FuzzEvenRanks is checkEvenRanks over sources, worlds and policies drawn
// from a seed: up to 300 rows in partitions of 1 to 50 rows and chunks
// of 1 to 20, on 1 to 7 ranks.
//
// go test -run FuzzEvenRanks runs the seeds; go test -run '^$' -fuzz
// FuzzEvenRanks explores.
func FuzzEvenRanks(f *testing.F) {
	for i := range 12 {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 5)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>1))
		rows, partition, chunk, world := r.IntN(301), 1+r.IntN(50), 1+r.IntN(20), 1+r.IntN(7)
		policy := []uneven{dropUneven, padUneven, allowUneven}[r.IntN(3)]
		t.Logf("%d rows, partitions of %d, chunks of %d, %d ranks, %v", rows, partition, chunk, world, policy)
		checkEvenRanksOf(t, rows, partition, chunk, world, policy)
	})
}

type pqRow struct {
	ID    int64  `parquet:"id"`
	Score int64  `parquet:"score"`
	Text  string `parquet:"text"`
}

// The totals come from Parquet footers; with a row filter they cannot,
// and the even policies say so before reading.
func TestEvenRanksParquet(t *testing.T) {
	dir := t.TempDir()
	for f := range 3 {
		var rows []pqRow
		for i := range 250 + 17*f {
			rows = append(rows, pqRow{ID: int64(1000*f + i), Score: int64(i % 10), Text: fmt.Sprint(i)})
		}
		testutil.WriteParquet(t, filepath.Join(dir, fmt.Sprintf("part-%d.parquet", f)), rows, 64)
	}
	total := 0
	counts, batches := [2]int{}, [2]int{}
	seen := map[rowid.ID]int{}
	for rank := range 2 {
		var acct operators.EvenAccount
		src := func(acct *operators.EvenAccount) *flow.Pipeline {
			return flow.From(operators.EvenRanks(parquet.Read[pqRow](dir), acct, operators.PadUneven())).Parallel(3).WithRank(rank, 2)
		}
		items := testutil.Items[pqRow](t, src(&acct))
		for _, it := range items {
			seen[it.ID]++
		}
		counts[rank] = len(items)
		batches[rank] = len(testutil.Items[operators.Rows[pqRow]](t, src(nil).Via(operators.Batch[pqRow](16, operators.DropRemainder()))))
		total = int(acct.Total)
		if !acct.Known || len(acct.Repeated) != 1 {
			t.Fatalf("rank %d: account %+v, want a known total and one repeated row", rank, acct)
		}
	}
	if total != 250+267+284 || counts[0] != counts[1] || counts[0] != (total+1)/2 || batches[0] != batches[1] || batches[0] != counts[0]/16 {
		t.Fatalf("total %d, ranks' rows %v, batches %v", total, counts, batches)
	}
	// Every row once, one row twice: the union covers the dataset.
	twice := 0
	for _, n := range seen {
		if n == 2 {
			twice++
		}
	}
	if len(seen) != total || twice != 1 {
		t.Fatalf("%d distinct rows of %d, %d delivered twice; want all, and one", len(seen), total, twice)
	}
	src := operators.EvenRanks(parquet.Read[pqRow](dir, parquet.RowFilter(sources.Gt("score", int64(4)))), nil)
	for _, err := range flow.Items[pqRow](t.Context(), flow.From(src).WithRank(0, 2)) {
		if err == nil || !strings.Contains(err.Error(), "RowFilter") {
			t.Fatalf("error %v: want one naming the RowFilter", err)
		}
	}
	// AllowUneven still runs, splitting each partition on its own.
	n := 0
	for rank := range 2 {
		acct := operators.EvenAccount{Known: true}
		src := operators.EvenRanks(parquet.Read[pqRow](dir, parquet.RowFilter(sources.Gt("score", int64(4)))), &acct, operators.AllowUneven())
		n += len(testutil.Items[pqRow](t, flow.From(src).WithRank(rank, 2)))
		if acct.Known || acct.Total != 0 {
			t.Errorf("AllowUneven with a filter: account %+v, want an unknown total", acct)
		}
	}
	want := 0
	for f := range 3 {
		for i := range 250 + 17*f {
			if i%10 > 4 {
				want++
			}
		}
	}
	if n != want {
		t.Errorf("AllowUneven with a filter: %d rows over both ranks, want %d", n, want)
	}
}
