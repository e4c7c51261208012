package parquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Review is a row of the example dataset; Lang comes from the Hive
// directory lang=….
type Review struct {
	ID    int64   `parquet:"id"`
	Score float64 `parquet:"score"`
	Lang  string  `parquet:"lang"`
}

// writeReviews writes a dataset of two Hive partitions, lang=de and
// lang=en, each one file of two row groups of three rows.
func writeReviews(dir string) error {
	for k, lang := range []string{"de", "en"} {
		path := filepath.Join(dir, "lang="+lang, "part-0.parquet")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := pq.NewGenericWriter[struct {
			ID    int64   `parquet:"id"`
			Score float64 `parquet:"score"`
		}](f)
		for g := range 2 {
			for i := range 3 {
				id := int64(k*100 + g*3 + i)
				if _, err := w.Write([]struct {
					ID    int64   `parquet:"id"`
					Score float64 `parquet:"score"`
				}{{id, float64(id%7) / 6}}); err != nil {
					return err
				}
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// The English reviews that score above one half, read on two workers:
// Where skips the lang=de files unopened, RowFilter keeps the rows, and
// the items come in plan order, one partition per row group.
func ExampleRead() {
	dir, err := os.MkdirTemp("", "reviews-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := writeReviews(dir); err != nil {
		fmt.Println(err)
		return
	}

	src := parquet.Read[Review](dir,
		sources.Where(sources.Eq("lang", "en")),
		parquet.RowFilter(sources.Gt("score", 0.5)))
	for it, err := range flow.Items[Review](context.Background(), flow.From(src).Parallel(2)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("partition %d: id %d, score %.2f, %s\n", it.Part, it.Value.ID, it.Value.Score, it.Value.Lang)
	}
	// Output:
	// partition 0: id 102, score 0.67, en
	// partition 1: id 103, score 0.83, en
	// partition 1: id 104, score 1.00, en
}
