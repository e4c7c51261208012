package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// columnBuf holds the values and levels of one column chunk, as the hand
// loop copies them out of parquet-go's pages. Only the slice of the
// column's kind is used; Offsets has one entry more than there are
// BYTE_ARRAY values, starting at 0, like rowflow's column batches.
type columnBuf struct {
	Int32     []int32
	Int64     []int64
	Double    []float64
	Bytes     []byte
	Offsets   []uint32
	DefLevels []byte
	RepLevels []byte
}

func (b *columnBuf) reset() {
	b.Int32, b.Int64, b.Double = b.Int32[:0], b.Int64[:0], b.Double[:0]
	b.Bytes, b.Offsets = b.Bytes[:0], append(b.Offsets[:0], 0)
	b.DefLevels, b.RepLevels = b.DefLevels[:0], b.RepLevels[:0]
}

// add copies the values and levels of page p to the end of b.
func (b *columnBuf) add(p parquet.Page) error {
	if p.Dictionary() != nil {
		return fmt.Errorf("column %d: dictionary-encoded page", p.Column())
	}
	v := p.Data()
	switch k := p.Type().Kind(); k {
	case parquet.Int32:
		b.Int32 = append(b.Int32, v.Int32()...)
	case parquet.Int64:
		b.Int64 = append(b.Int64, v.Int64()...)
	case parquet.Double:
		b.Double = append(b.Double, v.Double()...)
	case parquet.ByteArray:
		data, offsets := v.ByteArray()
		if len(offsets) > 1 {
			base := uint32(len(b.Bytes)) - offsets[0]
			b.Bytes = append(b.Bytes, data[offsets[0]:offsets[len(offsets)-1]]...)
			for _, o := range offsets[1:] {
				b.Offsets = append(b.Offsets, o+base)
			}
		}
	default:
		return fmt.Errorf("column %d: kind %s is not handled", p.Column(), k)
	}
	b.DefLevels = append(b.DefLevels, p.DefinitionLevels()...)
	b.RepLevels = append(b.RepLevels, p.RepetitionLevels()...)
	return nil
}

// readPages returns the hand-written columnar read on n goroutines
// sharing the open file: for each row group (goroutine k taking row groups
// k, k+n, k+2n, …), for each column chunk, it reads the pages with
// parquet-go and copies their typed values and levels into reused
// buffers, one per column and goroutine. With n > 1 it shows how much
// faster than one goroutine the machine lets a read go.
func readPages(n int) reader {
	return func(_ context.Context, path string) (int64, error) {
		return scanPages(path, n, func(int, int, *columnBuf) {})
	}
}

// scanPages runs the hand-written columnar read of path on n goroutines
// (the first on the calling goroutine) and calls f with each column
// chunk's buffer once the chunk has been read. f must not keep the buffer;
// with n > 1, calls come from several goroutines at once.
func scanPages(path string, n int, f func(rowGroup, column int, b *columnBuf)) (int64, error) {
	pf, closeFile, err := openParquet(path)
	if err != nil {
		return 0, err
	}
	defer closeFile()
	groups := pf.RowGroups()
	rows, errs := make([]int64, n), make([]error, n)
	work := func(k int) {
		bufs := make([]columnBuf, len(pf.Schema().Columns()))
		for rg := k; rg < len(groups); rg += n {
			for c, chunk := range groups[rg].ColumnChunks() {
				bufs[c].reset()
				if err := copyPages(chunk.Pages(), &bufs[c]); err != nil {
					errs[k] = fmt.Errorf("row group %d: %w", rg, err)
					return
				}
				f(rg, c, &bufs[c])
			}
			rows[k] += groups[rg].NumRows()
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < n; k++ {
		wg.Go(func() { work(k) })
	}
	work(0)
	wg.Wait()
	var total int64
	for _, r := range rows {
		total += r
	}
	return total, errors.Join(errs...)
}

// copyPages copies every page of pages into b, then closes pages.
func copyPages(pages parquet.Pages, b *columnBuf) error {
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = b.add(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}
