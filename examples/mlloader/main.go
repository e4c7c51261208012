// Command mlloader is the input pipeline of a training job, written with
// rowflow: it writes a Parquet dataset of documents, and for each of two
// ranks reads its even share of the rows, for two epochs, shuffled row by
// row, tokenised in parallel, bucketed by length into batches of 32,
// collated into columns (the tokens padded into a rectangular tensor, the
// labels and IDs as vectors) and prefetched ahead of a training step. The
// struct read from Parquet is the one collated: its tags say which field
// makes which column.
// It prints what each rank got and the throughput, and checks that a
// serial run of each rank gives the same stream as the parallel one.
//
//	go run ./examples/mlloader
//	go run ./examples/mlloader -n 500000 -workers 4
//
// With -dir the dataset stays there, in docs-N for N documents, so that a
// run with another -n writes beside it and one with the same -n writes
// the same files again; it never removes a file from -dir.
//
// The pipeline of one rank:
//
//	flow.From(operators.EvenRanks(sources/parquet.Read[Doc](dir), &acct)).
//		Parallel(w).Epochs(2).WithRank(rank, 2).WithSeed(7).
//		Via(operators.Shuffle[Doc](4096)).                      // row-level, per epoch
//		Via(operators.Map(tokenize)).Parallel(w).                // in parallel, serial order kept
//		Via(operators.BucketPool(32, 16, length, operators.DropRemainder())).
//		Via(operators.Collate[Doc]()).Parallel(w).               // id, label, input_ids
//		Via(operators.Prefetch[operators.Collated](4))
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

const (
	world     = 2
	epochs    = 2
	batchSize = 32
)

func main() {
	n := flag.Int("n", 200_001, "documents in the dataset (an odd count: the even ranks drop one)")
	workers := flag.Int("workers", 4, "workers of the parallel stages")
	dir := flag.String("dir", "", "working directory (default: a new temporary one, removed at the end)")
	flag.Parse()
	if err := checkFlags(*n, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "mlloader:", err)
		os.Exit(2)
	}
	if _, err := run(context.Background(), os.Stdout, *n, *workers, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "mlloader:", err)
		os.Exit(1)
	}
}

// rankReport is what one rank's training loop saw.
type rankReport struct {
	Account operators.EvenAccount // what EvenRanks decided (the last epoch's)
	Rows    int64                 // the rank's rows per epoch, from the account
	Batches [epochs]int           // batches per epoch
	Tokens  int64                 // real tokens over both epochs
	Padded  int64                 // tokens including padding
	Elapsed time.Duration         // the loop's wall time
	Sum     determinism.Sum       // digest of the parallel stream
}

// loader is the input pipeline of one rank.
func loader(data string, rank, workers int, acct *operators.EvenAccount) *flow.Pipeline {
	src := operators.EvenRanks(parquet.Read[Doc](data), acct)
	length := func(d Doc) int { return len(d.Tokens) }
	return flow.From(src).Parallel(workers).Epochs(epochs).WithRank(rank, world).WithSeed(7).
		Via(operators.Shuffle[Doc](4096)).
		Via(operators.Map(tokenize)).Parallel(workers).
		Via(operators.BucketPool(batchSize, 16, length, operators.DropRemainder())).
		Via(operators.Collate[Doc]()).Parallel(workers).
		Via(operators.Prefetch[operators.Collated](4))
}

// tokenize gives a document its tokens: a hashed ID per word, as a
// tokenizer with a fixed vocabulary would.
func tokenize(d Doc) (Doc, error) {
	words := strings.Fields(d.Text)
	d.Tokens = make([]int32, 0, len(words))
	for _, w := range words {
		h := fnv.New32a()
		h.Write([]byte(w))
		d.Tokens = append(d.Tokens, int32(h.Sum32()%30000)+16)
	}
	return d, nil
}

// checkFlags checks the number of documents n, at least a batch for each
// rank, and of workers.
func checkFlags(n, workers int) error {
	if n < world*batchSize {
		return fmt.Errorf("-n %d: must be at least %d, a batch of %d for each of %d ranks", n, world*batchSize, batchSize, world)
	}
	if workers < 1 {
		return fmt.Errorf("-workers %d: must be at least 1", workers)
	}
	// Parallel refuses more workers than a stage may have: ask it before
	// anything is written.
	if err := flow.From(sources.Slice([]int(nil))).Parallel(workers).Err(); err != nil {
		return fmt.Errorf("-workers %d: %w", workers, err)
	}
	return nil
}

func run(ctx context.Context, w io.Writer, n, workers int, dir string) ([world]rankReport, error) {
	var reports [world]rankReport
	if err := checkFlags(n, workers); err != nil {
		return reports, err
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "rowflow-mlloader-")
		if err != nil {
			return reports, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	// Each size has its own directory: the files of one size are another
	// pipeline's output than those of another.
	data := filepath.Join(dir, fmt.Sprintf("docs-%d", n))
	if err := writeDataset(ctx, data, n, 8); err != nil {
		return reports, err
	}
	fmt.Fprintf(w, "dataset: %d documents in 8 Parquet files written by shards.Parquet, %d ranks, %d epochs, batches of %d\n", n, world, epochs, batchSize)
	for rank := range world {
		r, err := train(ctx, data, rank, workers)
		if err != nil {
			return reports, err
		}
		serial, err := determinism.SumOf[operators.Collated](ctx, loader(data, rank, 1, nil))
		if err != nil {
			return reports, err
		}
		verdict := "equal"
		if serial != r.Sum {
			verdict = "DIFFERENT"
		}
		fmt.Fprintf(w, "rank %d: %d of %d rows per epoch (%s), batches per epoch %v, %.1f%% padding, %.0f batches/s, %.2fM tokens/s\n",
			rank, r.Rows, r.Account.Total, accountText(r.Account), r.Batches, 100*float64(r.Padded-r.Tokens)/float64(r.Padded),
			float64(r.Batches[0]+r.Batches[1])/r.Elapsed.Seconds(), float64(r.Tokens)/r.Elapsed.Seconds()/1e6)
		fmt.Fprintf(w, "rank %d: digest at %d workers %s, serial %s: %s\n", rank, workers, short(r.Sum), short(serial), verdict)
		if serial != r.Sum {
			return reports, fmt.Errorf("rank %d: the parallel stream differs from the serial one", rank)
		}
		reports[rank] = r
	}
	if reports[0].Batches != reports[1].Batches {
		return reports, fmt.Errorf("ranks got %v and %v batches", reports[0].Batches, reports[1].Batches)
	}
	fmt.Fprintf(w, "both ranks: %v batches per epoch\n", reports[0].Batches)
	return reports, nil
}

// train runs the training loop of one rank over its batches: a step that
// touches every token, as moving a batch to a device would.
func train(ctx context.Context, data string, rank, workers int) (rankReport, error) {
	var r rankReport
	var acct operators.EvenAccount
	h := determinism.NewHasher[operators.Collated]()
	start := time.Now()
	for it, err := range flow.Items[operators.Collated](ctx, loader(data, rank, workers, &acct)) {
		if err != nil {
			return r, err
		}
		ids, _ := it.Value.Column("input_ids")
		r.Batches[it.Epoch()]++
		for _, l := range ids.Lengths {
			r.Tokens += int64(l)
		}
		r.Padded += int64(len(ids.Data.([]int32)))
		if err := h.Add(it.ID, it.Value); err != nil {
			return r, err
		}
	}
	r.Elapsed = time.Since(start)
	r.Account, r.Rows, r.Sum = acct, acct.PerRank, h.Sum()
	return r, nil
}

// accountText says what the even split dropped.
func accountText(a operators.EvenAccount) string {
	switch d := a.Dropped; {
	case d[1] == d[0]+1:
		return fmt.Sprintf("row %d of the stream goes to no rank", d[0])
	case d[1] > d[0]:
		return fmt.Sprintf("rows %d to %d of the stream go to no rank", d[0], d[1]-1)
	}
	return "nothing dropped"
}

func short(s determinism.Sum) string { return s.String()[:16] }
