package main

import (
	"context"
	"errors"
	"io"
	"os"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources/parquet"
)

// readBatch is the number of rows the GenericReader reads per call: the
// chunk size of rowflow's source.
const readBatch = 1024

// readRowflow returns the reader that reads every row into structs T with
// rowflow's source on n workers and counts them.
func readRowflow[T any](n int) reader {
	return func(ctx context.Context, path string) (int64, error) {
		var rows int64
		err := structs[T](path, n).To(sinks.Count[T](&rows)).Run(ctx)
		return rows, err
	}
}

// structs is the pipeline that reads the rows of path into structs T on n
// workers.
func structs[T any](path string, n int) *flow.Pipeline {
	return flow.From(parquet.Read[T](path)).Parallel(n)
}

// readColumns reads every column of path as column batches on one worker,
// counts their rows and hands each batch's buffers back, as a consumer
// that is done with a batch does.
func readColumns(ctx context.Context, path string) (int64, error) {
	var rows int64
	err := flow.From(parquet.Read[*parquet.ColumnBatch](path)).To(sinks.ForEach(func(it flow.Item[*parquet.ColumnBatch]) error {
		rows += int64(it.Value.NumRows)
		it.Value.Release()
		return nil
	})).Run(ctx)
	return rows, err
}

// openParquet opens path with parquet-go, skipping what neither reader
// uses (page indexes, bloom filters) and reading pages through a 1 MiB
// buffer, as the rowflow source does. It returns the file and a function
// that closes it.
func openParquet(path string) (*pq.File, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		var pf *pq.File
		pf, err = pq.OpenFile(f, st.Size(), pq.SkipPageIndex(true), pq.SkipBloomFilters(true),
			pq.ReadBufferSize(1<<20))
		if err == nil {
			return pf, f.Close, nil
		}
	}
	f.Close()
	return nil, nil, err
}

// readGeneric reads every row of path into structs T with parquet-go's
// GenericReader, readBatch rows at a time into one reused buffer, and
// counts them.
func readGeneric[T any](_ context.Context, path string) (int64, error) {
	return scanGeneric(path, func([]T) {})
}

// scanGeneric reads every row of path with a GenericReader[T] and hands
// each batch to f, which must not keep it.
func scanGeneric[T any](path string, f func([]T)) (rows int64, err error) {
	pf, closeFile, err := openParquet(path)
	if err != nil {
		return 0, err
	}
	defer closeFile()
	r := pq.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, readBatch)
	for {
		n, err := r.Read(buf)
		rows += int64(n)
		f(buf[:n])
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
	}
}
