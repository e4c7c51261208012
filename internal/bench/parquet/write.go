package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// writeBare returns the writer that writes rows with n bare
// GenericWriter[Row]s (zstd, row groups of rowGroupRows rows) on n
// goroutines (the first on the calling goroutine), each writing a
// contiguous 1/n of the rows to a file of its own and fsyncing it, as the sink fsyncs its files before it commits
// them. With n > 1 it shows how much faster than one writer the machine
// lets a write go.
func writeBare(n int) writer {
	return func(_ context.Context, dir string, rows []Row) (int64, error) {
		written, errs := make([]int64, n), make([]error, n)
		work := func(k int) {
			part := rows[k*len(rows)/n : (k+1)*len(rows)/n]
			written[k], errs[k] = writeBareFile(filepath.Join(dir, fmt.Sprintf("bare-%d.parquet", k)), part)
		}
		var wg sync.WaitGroup
		for k := 1; k < n; k++ {
			wg.Go(func() { work(k) })
		}
		work(0)
		wg.Wait()
		var total int64
		for _, w := range written {
			total += w
		}
		return total, errors.Join(errs...)
	}
}

// writeBareFile writes rows to path with a GenericWriter[Row] and fsyncs
// the file.
func writeBareFile(path string, rows []Row) (n int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := parquet.NewGenericWriter[Row](f, writerOptions()...)
	if _, err := w.Write(rows); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return int64(len(rows)), f.Sync()
}

// writeSink returns the writer that writes rows with rowflow's sink on
// the given number of writers (zstd and row groups of rowGroupRows rows,
// its defaults) and the other options, fed by a slice source.
func writeSink(writers int, opts ...shards.ParquetOption) writer {
	return func(ctx context.Context, dir string, rows []Row) (int64, error) {
		opts := append([]shards.ParquetOption{shards.Writers(writers), shards.RowGroupRows(rowGroupRows)}, opts...)
		sink := shards.Parquet[Row](filepath.Join(dir, "out"), opts...)
		if err := flow.From(sources.Slice(rows)).To(sink).Run(ctx); err != nil {
			return 0, err
		}
		return int64(len(rows)), nil
	}
}
