package dataset_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/dataset"
)

type row struct {
	N int64 `parquet:"n"`
}

// writeExample writes a Hive-partitioned dataset of two files: lang=de
// with row groups of 4 and 2 rows, lang=en with one of 3 rows.
func writeExample() string {
	root, err := os.MkdirTemp("", "dataset-example")
	if err != nil {
		log.Fatal(err)
	}
	for rel, groups := range map[string][]int{
		"lang=de/part-0.parquet": {4, 2},
		"lang=en/part-0.parquet": {3},
	} {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			log.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			log.Fatal(err)
		}
		w := parquet.NewGenericWriter[row](f)
		for _, n := range groups {
			if _, err := w.Write(make([]row, n)); err != nil {
				log.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				log.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
	return root
}

func Example() {
	root := writeExample()
	defer os.RemoveAll(root)

	ds, err := dataset.Discover(root)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("columns:", ds.Columns())

	// Row groups of more than 2 rows are split; no shuffle.
	plan, err := dataset.New(ds, dataset.Config{MaxRows: 2})
	if err != nil {
		log.Fatal(err)
	}
	for f, err := range plan.Fragments(context.Background(), dataset.Position{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("partition %d: %s group %d rows [%d,%d) first row %d\n",
			f.Part, f.Path, f.RowGroup, f.From, f.To, f.FirstRow)
	}
	// Output:
	// columns: [lang]
	// partition 0: lang=de/part-0.parquet group 0 rows [0,2) first row 0
	// partition 1: lang=de/part-0.parquet group 0 rows [2,4) first row 2
	// partition 2: lang=de/part-0.parquet group 1 rows [0,2) first row 4
	// partition 3: lang=en/part-0.parquet group 0 rows [0,1) first row 0
	// partition 4: lang=en/part-0.parquet group 0 rows [1,3) first row 1
}

func Example_shuffleAndRank() {
	root := writeExample()
	defer os.RemoveAll(root)

	ds, err := dataset.Discover(root)
	if err != nil {
		log.Fatal(err)
	}
	// Rank 1 of 2 of a global shuffle over two epochs, German files only.
	plan, err := dataset.New(ds, dataset.Config{
		Where:   filter.Compare(filter.Eq, "lang", filter.Of("de")),
		MaxRows: 2, Window: -1, Seed: 7, Epochs: 2, Rank: 1, World: 2})
	if err != nil {
		log.Fatal(err)
	}
	for f, err := range plan.Fragments(context.Background(), dataset.Position{}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("epoch %d index %d partition %d: group %d rows [%d,%d)\n",
			f.Epoch, f.Index, f.Part, f.RowGroup, f.From, f.To)
	}
	// Output:
	// epoch 0 index 1 partition 1: group 0 rows [0,2)
	// epoch 1 index 1 partition 4294967297: group 0 rows [2,4)
}
