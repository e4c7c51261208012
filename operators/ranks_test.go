package operators_test

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// rankRow is a row of the datasets the rank tests write.
type rankRow struct {
	N    int64  `parquet:"n" json:"n" csv:"n"`
	Text string `parquet:"text" json:"text" csv:"text"`
}

// rankDatasets writes the same 2,000 rows as a Parquet dataset of uneven
// files and row groups, as CSV and as JSON Lines, and returns each
// format's source.
func rankDatasets(t *testing.T) map[string]func() flow.Source[rankRow] {
	t.Helper()
	root := t.TempDir()
	rows := make([]rankRow, 2000)
	for i := range rows {
		rows[i] = rankRow{N: int64(i), Text: strings.Repeat("x", i%17)}
	}
	var csv, jsonl strings.Builder
	csv.WriteString("n,text\n")
	for _, r := range rows {
		fmt.Fprintf(&csv, "%d,%s\n", r.N, r.Text)
		fmt.Fprintf(&jsonl, `{"n":%d,"text":%q}`+"\n", r.N, r.Text)
	}
	for _, d := range []string{"pq", "csv", "jsonl"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Files of 1,100, 600 and 300 rows, in row groups of 70.
	testutil.WriteParquet(t, filepath.Join(root, "pq", "a.parquet"), rows[:1100], 70)
	testutil.WriteParquet(t, filepath.Join(root, "pq", "b.parquet"), rows[1100:1700], 70)
	testutil.WriteParquet(t, filepath.Join(root, "pq", "c.parquet"), rows[1700:], 70)
	if err := os.WriteFile(filepath.Join(root, "csv", "a.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "jsonl", "a.jsonl"), []byte(jsonl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	slice := func(lo, hi int) *flow.Pipeline {
		return flow.From(sources.Slice(rows[lo:hi], sources.PartitionItems(90), sources.Named(fmt.Sprint("s", lo))))
	}
	return map[string]func() flow.Source[rankRow]{
		"parquet": func() flow.Source[rankRow] {
			return parquet.Read[rankRow](filepath.Join(root, "pq"), parquet.MaxRows(50))
		},
		"csv": func() flow.Source[rankRow] {
			return text.CSV[rankRow](filepath.Join(root, "csv"), text.PartitionBytes(1500))
		},
		"jsonl": func() flow.Source[rankRow] {
			return text.JSONL[rankRow](filepath.Join(root, "jsonl"), text.PartitionBytes(1500))
		},
		"slice": func() flow.Source[rankRow] { return sources.Slice(rows, sources.PartitionItems(90)) },
		"generate": func() flow.Source[rankRow] {
			return sources.Generate(2000, func(i int64) (rankRow, error) { return rows[i], nil }, sources.PartitionItems(90))
		},
		"concat": func() flow.Source[rankRow] { return operators.Concat[rankRow](slice(0, 700), slice(700, 2000)) },
		"mix": func() flow.Source[rankRow] {
			return operators.Mix[rankRow]([]*flow.Pipeline{slice(0, 700), slice(700, 2000)}, []float64{1, 2})
		},
	}
}

// TestOneSplitPerRun: every rank of a run reads its own rows, whatever the
// source: the ranks' rows are disjoint, and together, merged by partition
// number, they are the rows of the run of one rank, IDs, values and order.
// (A Parquet, CSV or JSON Lines source under WithRank once gave every row
// to every rank.)
func TestOneSplitPerRun(t *testing.T) {
	for name, src := range rankDatasets(t) {
		t.Run(name, func(t *testing.T) {
			all := testutil.Items[rankRow](t, flow.From(src()))
			if len(all) != 2000 {
				t.Fatalf("one rank: %d rows, want 2000", len(all))
			}
			for _, world := range []int{2, 3, 5} {
				var union []flow.Item[rankRow]
				seen := map[rowid.ID]int{}
				for rank := range world {
					p := flow.From(src())
					if name != "mix" && name != "concat" {
						p = p.Parallel(2)
					}
					got := testutil.Items[rankRow](t, p.WithRank(rank, world))
					for _, it := range got {
						if r, ok := seen[it.ID]; ok {
							t.Fatalf("world %d: row %v read by ranks %d and %d", world, it.ID, r, rank)
						}
						seen[it.ID] = rank
					}
					union = append(union, got...)
				}
				if name == "mix" || name == "concat" {
					// A combination takes each input's share in its own
					// sequence: compare the rows as sets.
					sortByID(union)
					all := slices.Clone(all)
					sortByID(all)
					checkSameRows(t, world, union, all)
					continue
				}
				slices.SortStableFunc(union, func(a, b flow.Item[rankRow]) int { return int(a.Part - b.Part) })
				checkSameRows(t, world, union, all)
			}
		})
	}
}

func sortByID(items []flow.Item[rankRow]) {
	slices.SortFunc(items, func(a, b flow.Item[rankRow]) int { return a.ID.Compare(b.ID) })
}

func checkSameRows(t *testing.T, world int, got, want []flow.Item[rankRow]) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("world %d: the ranks read %d rows together, want %d", world, len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || !reflect.DeepEqual(got[i].Value, want[i].Value) {
			t.Fatalf("world %d: row %d is %+v, want %+v", world, i, got[i], want[i])
		}
	}
}

// countingSource is a user's source that does not divide its rows among
// ranks: it yields one partition of n rows, counting the calls to
// Partitions.
type countingSource struct {
	n     int
	calls *int
}

func (s countingSource) Info() flow.Info { return flow.Info{Name: "user"} }

func (s countingSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	*s.calls++
	return sources.Generate(int64(s.n), func(i int64) (int64, error) { return i, nil }).Partitions(ctx, flow.Env{Seed: env.Seed, World: 1})
}

// TestSourceThatCannotSplit: a run of several ranks refuses, before
// reading, a source that does not divide its rows; EvenRanks divides them.
func TestSourceThatCannotSplit(t *testing.T) {
	calls := 0
	src := countingSource{n: 100, calls: &calls}
	for _, p := range []*flow.Pipeline{
		flow.From[int64](src).WithRank(1, 2),
		flow.From(operators.Concat[int64](flow.From[int64](src))).WithRank(1, 2),
	} {
		for _, err := range flow.Items[int64](context.Background(), p) {
			if err == nil || !strings.Contains(err.Error(), `source "user" does not divide its rows among ranks`) {
				t.Fatalf("Items: %v", err)
			}
		}
	}
	if calls != 0 {
		t.Fatalf("the refused runs called Partitions %d times", calls)
	}
	var rows int
	for rank := range 2 {
		rows += len(testutil.Items[int64](t, flow.From(operators.EvenRanks[int64](src, nil, operators.AllowUneven())).WithRank(rank, 2)))
	}
	if rows != 100 {
		t.Fatalf("EvenRanks over two ranks: %d rows, want 100", rows)
	}
}

// TestEvenRanksSplitsOnce: EvenRanks over a source that divides its rows
// itself divides them once: by default each of 3 ranks gets 2000/3 rows.
// (EvenRanks over a source given a rank of its own, under WithRank, once
// divided twice and lost half the rows.)
func TestEvenRanksSplitsOnce(t *testing.T) {
	pq := rankDatasets(t)["parquet"]
	seen := map[rowid.ID]bool{}
	for rank := range 3 {
		var acct operators.EvenAccount
		got := testutil.Items[rankRow](t, flow.From(operators.EvenRanks(pq(), &acct)).WithRank(rank, 3))
		if len(got) != 666 || acct.Total != 2000 || acct.PerRank != 666 {
			t.Fatalf("rank %d: %d rows, account %+v; want 666 of 2000", rank, len(got), acct)
		}
		for _, it := range got {
			if seen[it.ID] {
				t.Fatalf("rank %d: row %v read twice", rank, it.ID)
			}
			seen[it.ID] = true
		}
	}
}

// TestCombinationInputsTakeTheRunsRank: an input of a combination with a
// rank of its own is refused: the rank is said once, on the run.
func TestCombinationInputsTakeTheRunsRank(t *testing.T) {
	in := flow.From(sources.Slice([]int{1, 2, 3}))
	src := operators.Concat[int](in, in.WithRank(0, 2))
	for _, err := range flow.Items[int](context.Background(), flow.From(src)) {
		if err == nil || !strings.Contains(err.Error(), "concat: input 1 has a rank of its own") || !strings.Contains(err.Error(), "(WithRank(0, 2))") {
			t.Fatalf("Items: %v", err)
		}
	}
}

// TestRankSharesResume: a rank's share of a shuffled Parquet dataset,
// whose row groups the even split cuts between ranks, resumes from every
// checkpoint to exactly the rest of the run, at any parallelism; so does
// a rank's share of text byte ranges.
func TestRankSharesResume(t *testing.T) {
	srcs := rankDatasets(t)
	for _, name := range []string{"parquet", "jsonl"} {
		t.Run(name, func(t *testing.T) {
			got := matrixResume[rankRow](t, func(par int) *flow.Pipeline {
				return flow.From(srcs[name]()).Parallel(par).Epochs(2).WithSeed(3).WithRank(1, 3)
			}, matrixOpts{stride: 97, stops: 3, min: 1000})
			// Parquet shares are exact to a row; the text file is only
			// a few 4 KiB ranges, dealt whole.
			if lo, hi := 1332, 1334; name == "parquet" && (len(got) < lo || len(got) > hi) ||
				len(got) < 1200 || len(got) > 1470 {
				t.Fatalf("rank 1 of 3 read %d rows in two epochs, want about 2 × 2000/3", len(got))
			}
		})
	}
}

// TestRankSharesStartAt: At(e, k) in a rank's share starts at the
// k-th item of the rank's epoch e, found from the plan's counts.
func TestRankSharesStartAt(t *testing.T) {
	pq := rankDatasets(t)["parquet"]
	build := func() *flow.Pipeline { return flow.From(pq()).Parallel(2).Epochs(2).WithSeed(5).WithRank(2, 3) }
	all := testutil.Items[rankRow](t, build())
	per := len(all) / 2
	for _, k := range []int{0, 1, 49, 50, 333, per - 1} {
		got := testutil.Items[rankRow](t, build().Resume(flow.At(1, int64(k))))
		if !slices.Equal(got, all[per+k:]) {
			t.Fatalf("At(1, %d): %d items, want the %d after item %d of epoch 1", k, len(got), len(all)-per-k, k)
		}
	}
}
