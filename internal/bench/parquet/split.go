package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Split row groups. A source reads a row group of more than MaxRows rows
// in ranges of MaxRows rows. With a page index each range starts at its
// own page; without one (pyarrow writes none unless asked) the source
// scans for it. The two files of this comparison hold the benchmark's rows
// in data pages v1, as pyarrow writes them by default, whose rows of the
// list column only their levels tell apart: one file with its page
// indexes, one without.

// splitRows is the MaxRows of the split reads: 8 ranges per row group.
const splitRows = rowGroupRows / 8

// ensureSplitFiles writes, unless they are there, the files of n rows in
// data pages v1 beside path, with and without page indexes, and returns
// their paths.
func ensureSplitFiles(path string, n int) (indexed, noIndex string, err error) {
	base := path[:len(path)-len(filepath.Ext(path))]
	indexed, noIndex = base+"-v1.parquet", base+"-v1-noindex.parquet"
	if pf, closeFile, err := openParquet(noIndex); err == nil {
		rows := pf.NumRows()
		closeFile()
		if rows == int64(n) {
			return indexed, noIndex, nil
		}
	}
	if err := writeFile(indexed, n, rowGroupRows, pq.DataPageVersion(1)); err != nil {
		return "", "", err
	}
	return indexed, noIndex, withoutPageIndexes(indexed, noIndex)
}

// withoutPageIndexes writes to dst a copy of the Parquet file src whose
// footer records no page index for any column chunk.
func withoutPageIndexes(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if len(data) < 12 {
		return errors.New("not a Parquet file")
	}
	at := len(data) - 8 - int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	if at < 4 {
		return errors.New("not a Parquet file")
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[at:len(data)-8], &md); err != nil {
		return err
	}
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			c := &md.RowGroups[i].Columns[j]
			c.OffsetIndexOffset, c.OffsetIndexLength, c.ColumnIndexOffset, c.ColumnIndexLength = 0, 0, 0, 0
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return err
	}
	out := append(append(data[:at:at], footer...), binary.LittleEndian.AppendUint32(nil, uint32(len(footer)))...)
	return os.WriteFile(dst, append(out, "PAR1"...), 0o644)
}

// splitVariants returns the variants that read the two files in ranges.
func splitVariants(indexed, noIndex string) []variant {
	v := func(name, desc, path string) variant {
		return variant{name: name, desc: desc, run: func(ctx context.Context, _ string) (int64, error) {
			var rows int64
			err := flow.From(parquet.Read[Row](path, parquet.MaxRows(splitRows))).To(sinks.Count[Row](&rows)).Run(ctx)
			return rows, err
		}}
	}
	return []variant{
		v(nameSplit, fmt.Sprintf("as rowflow-p1 with MaxRows(%d), over the rows in data pages v1 with page indexes", splitRows), indexed),
		v(nameSplitNoIndex, "as rowflow-split, over the same file without its page indexes", noIndex),
	}
}
