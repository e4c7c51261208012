package main

import (
	"context"
	"fmt"
	"github.com/rowflow/rowflow/sinks/shards"
)

// A variant is one way of doing one of the measured jobs. run does it once
// and returns the number of rows it read or wrote; scratch is an empty
// directory the run may write into, removed after it.
type variant struct {
	name string
	desc string
	run  func(ctx context.Context, scratch string) (int64, error)
}

// A reader reads the Parquet file at path and returns its number of rows.
type reader func(ctx context.Context, path string) (int64, error)

// A writer writes rows into the empty directory dir and returns how many
// it wrote.
type writer func(ctx context.Context, dir string, rows []Row) (int64, error)

// Names of the variants.
const (
	nameGeneric    = "generic-reader"
	nameP1         = "rowflow-p1"
	nameP2         = "rowflow-p2"
	nameGenericNum = "generic-reader-numeric"
	nameNumeric    = "rowflow-numeric-p1"
	namePages      = "page-loop"
	namePages2     = "page-loop-p2"
	nameColumns    = "rowflow-columns"
	namePqcol      = "pqcol-reused"
	nameBare       = "bare-writer"
	nameSink1      = "sink-1-writer"
	nameSink2      = "sink-2-writers"
	nameBare2      = "bare-writer-p2"
	nameSinkIDs    = "sink-1-writer-row-ids"

	nameSplit        = "rowflow-split"
	nameSplitNoIndex = "rowflow-split-no-index"
)

// readVariants returns the variants that read the file at path.
func readVariants(path string) []variant {
	v := func(name, desc string, read reader) variant {
		return variant{name: name, desc: desc,
			run: func(ctx context.Context, _ string) (int64, error) { return read(ctx, path) }}
	}
	return []variant{
		v(nameGeneric, fmt.Sprintf("parquet-go GenericReader[Row], Read into one reused []Row of %d", readBatch),
			readGeneric[Row]),
		v(nameP1, "parquet.Read[Row] → sinks.Count, Parallel(1)", readRowflow[Row](1)),
		v(nameP2, "as rowflow-p1, with Parallel(2) on the source", readRowflow[Row](2)),
		v(nameGenericNum, "as generic-reader, into a struct of the int64 and float64 columns only",
			readGeneric[Numeric]),
		v(nameNumeric, "as rowflow-p1, into a struct of the int64 and float64 columns only", readRowflow[Numeric](1)),
		v(namePages, "hand-written parquet-go loop: row group → column chunk → Pages → ReadPage, "+
			"copying page.Data() values and levels into reused typed buffers", readPages(1)),
		v(namePages2, "page-loop on 2 goroutines, each reading every other row group: "+
			"the speed-up the machine allows a parallel read", readPages(2)),
		v(nameColumns, "parquet.Read[*ColumnBatch] → count the batches' rows, Parallel(1)", readColumns),
		v(namePqcol, "internal/parquet/pqcol, the source's decoder, reading each column chunk into one reused Column "+
			"per leaf: the columnar mode without fresh buffers per batch", readPqcol),
	}
}

// writeVariants returns the variants that write rows.
func writeVariants(rows []Row) []variant {
	v := func(name, desc string, write writer) variant {
		return variant{name: name, desc: desc,
			run: func(ctx context.Context, dir string) (int64, error) { return write(ctx, dir, rows) }}
	}
	return []variant{
		v(nameBare, "parquet-go GenericWriter[Row], Write(all rows), one file, fsynced", writeBare(1)),
		v(nameSink1, "sources.Slice → shards.Parquet[Row], one writer", writeSink(1)),
		v(nameSink2, "as sink-1-writer, with Writers(2)", writeSink(2)),
		v(nameSinkIDs, "as sink-1-writer, with the row IDs in columns (RowIDColumn), as an ETL job keeps them", writeSink(1, shards.RowIDColumn("row_id"))),
		v(nameBare2, "2 bare writers on 2 goroutines, each writing half the rows to a file of its own: "+
			"the speed-up the machine allows a parallel write", writeBare(2)),
	}
}

// A comparison is a row of the table: variant against base, with the
// speed ratio it aims for (0: for information only).
type comparison struct {
	variant, base string
	aim           float64
}

// comparisons are the rows of the table, in order.
var comparisons = []comparison{
	{variant: nameGeneric},
	{variant: nameP1, base: nameGeneric, aim: 3},
	{variant: nameP2, base: nameP1, aim: 1.6},
	{variant: nameGenericNum, base: nameGeneric},
	{variant: nameNumeric, base: nameP1},
	{variant: namePages},
	{variant: namePages2, base: namePages},
	{variant: nameColumns, base: namePages, aim: 0.8},
	{variant: namePqcol, base: namePages},
	{variant: nameSplit},
	{variant: nameSplitNoIndex, base: nameSplit, aim: 0.8},
	{variant: nameBare},
	{variant: nameSink1, base: nameBare, aim: 0.9},
	{variant: nameSink2, base: nameBare, aim: 1.6},
	{variant: nameSinkIDs, base: nameSink1},
	{variant: nameBare2, base: nameBare},
}
