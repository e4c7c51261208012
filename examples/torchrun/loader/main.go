// Command loader is the input pipeline of a data-parallel training job
// that torchrun (or any launcher rowflow knows) starts once per rank: it
// takes its rank from the environment with ranks.FromEnv, said once for
// the run with WithRank, reads its share of a Parquet dataset for a few
// epochs in batches, and prints, for each epoch, the number of batches
// and rows it got:
//
//	rank R of W (FROM): epoch E: B batches, N rows
//
// Data-parallel training needs every rank to take the same number of
// steps in an epoch; examples/torchrun/README.md shows the lines of a run
// of three ranks.
//
//	torchrun --standalone --nproc_per_node 3 --no_python -r 1 -t 2 \
//		./loader -data /shared/input
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/ranks"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Row is the part of a row that the training step uses.
type Row struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
}

func main() {
	data := flag.String("data", "", "the Parquet dataset (a file or a directory; required)")
	epochs := flag.Int64("epochs", 2, "epochs to read")
	batch := flag.Int("batch", 64, "rows per batch")
	flag.Parse()
	if err := run(context.Background(), *data, *epochs, *batch); err != nil {
		fmt.Fprintln(os.Stderr, "loader:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, data string, epochs int64, batch int) error {
	if data == "" || epochs < 1 || batch < 1 {
		return fmt.Errorf("need -data, -epochs >= 1 and -batch >= 1")
	}
	r, err := ranks.FromEnv()
	if err != nil {
		return err
	}
	p := flow.From(parquet.Read[Row](data)).Epochs(epochs).WithRank(r.Rank, r.World).WithSeed(7).
		Via(operators.Batch[Row](batch))
	batches, rows := make([]int64, epochs), make([]int64, epochs)
	for it, err := range flow.Items[operators.Rows[Row]](ctx, p) {
		if err != nil {
			return err
		}
		e := it.Epoch()
		if e < 0 || e >= epochs {
			return fmt.Errorf("a batch of epoch %d in a run of %d epochs", e, epochs)
		}
		batches[e]++
		rows[e] += int64(len(it.Value.Values) - it.Value.Padding)
	}
	for e := range epochs {
		fmt.Printf("%v: epoch %d: %d batches, %d rows\n", r, e, batches[e], rows[e])
	}
	return nil
}
