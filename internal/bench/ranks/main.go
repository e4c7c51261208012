// Command rankbench measures how evenly the ranks of a run share a
// dataset: for a generated dataset of uneven files (three large, thirty
// small; for JSON Lines some compressed) it runs every rank of worlds 2 to
// 16 and prints each world's smallest and largest share and their ratio.
// It checks that the ranks read every row once together.
//
//	go run ./internal/bench/ranks
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// allWorlds are the worlds measured: 2 to 16.
var allWorlds = []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

// share is what one world's ranks read.
type share struct {
	world    int
	rows     []int64
	ranksSum int64
}

func (s share) ratio() float64 {
	return float64(slices.Max(s.rows)) / float64(max(slices.Min(s.rows), 1))
}

// measure runs src at every rank of every world given.
func measure(ctx context.Context, src func() flow.Source[row], worlds []int) ([]share, error) {
	var out []share
	for _, world := range worlds {
		s := share{world: world}
		for rank := range world {
			var n int64
			if err := flow.From(src()).WithRank(rank, world).To(sinks.Count[row](&n)).Run(ctx); err != nil {
				return nil, err
			}
			s.rows = append(s.rows, n)
			s.ranksSum += n
		}
		out = append(out, s)
	}
	return out, nil
}

// datasets writes the Parquet and JSON Lines datasets under root and
// returns their sources and row totals.
func datasets(root string) (map[string]func() flow.Source[row], map[string]int, error) {
	pq, textDir := filepath.Join(root, "parquet"), filepath.Join(root, "jsonl")
	for _, d := range []string{pq, textDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, nil, err
		}
	}
	npq, err := writeParquet(pq, uneven)
	if err != nil {
		return nil, nil, err
	}
	ntext, err := writeJSONL(textDir, uneven)
	if err != nil {
		return nil, nil, err
	}
	srcs := map[string]func() flow.Source[row]{
		"parquet": func() flow.Source[row] { return parquet.Read[row](pq) },
		"jsonl":   func() flow.Source[row] { return text.JSONL[row](textDir) },
	}
	return srcs, map[string]int{"parquet": npq, "jsonl": ntext}, nil
}

func main() {
	root, err := os.MkdirTemp("", "rankbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(root)
	srcs, totals, err := datasets(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	fmt.Println("| source | world | rows per rank (min–max) | max/min |")
	fmt.Println("| --- | --- | --- | --- |")
	for _, name := range []string{"parquet", "jsonl"} {
		shares, err := measure(ctx, srcs[name], allWorlds)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, s := range shares {
			if s.ranksSum != int64(totals[name]) {
				fmt.Fprintf(os.Stderr, "%s world %d: the ranks read %d rows, the dataset has %d\n", name, s.world, s.ranksSum, totals[name])
				os.Exit(1)
			}
			fmt.Printf("| %s | %d | %d–%d | %.3f |\n", name, s.world, slices.Min(s.rows), slices.Max(s.rows), s.ratio())
		}
	}
}
