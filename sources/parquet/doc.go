// Package parquet reads Parquet datasets: a file, a directory tree or a
// glob of Parquet files, with Hive-style key=value directories as
// partition columns. [Read] returns a [flow.Source] to start a pipeline
// with [flow.From]; its type parameter says what a row becomes: a struct,
// a [sources.Record] of columns not known in advance, or a
// *[ColumnBatch] of typed column slices. [RecordSchema] is the schema of
// the records.
//
// # Options
//
// [Read] and [RecordSchema] take an [Option]: those of this package
// ([Columns], [RowFilter], [MaxRows], …) and those of package sources
// that every source of files takes (sources.Files, sources.ShuffleWindow,
// sources.Where, sources.WholeFiles, sources.ChunkSize, sources.Named).
// Each option's doc states its default. A bad value makes [flow.From]
// keep the error, which the run then returns.
//
// # Filters
//
// A sources.Expr is one model for both filters: sources.Where on Hive
// partition values, decided before any file is opened, and [RowFilter]
// on file columns, which skips the row groups and pages whose statistics
// show that no row matches and tests the remaining rows one by one.
//
// # The name parquet
//
// This package and parquet-go are both named parquet. A program that
// uses both imports parquet-go under another name:
//
//	import (
//		pq "github.com/parquet-go/parquet-go"
//		"github.com/rowflow/rowflow/sources/parquet"
//	)
package parquet
