// Package sources holds the inputs of a rowflow pipeline, each a
// [flow.Source] to start a pipeline with [flow.From], and what the sources
// of every format share. The sources of files are in a package per
// format: [github.com/rowflow/rowflow/sources/parquet] for Parquet
// datasets, [github.com/rowflow/rowflow/sources/text] for CSV and JSON
// Lines. This package holds the in-memory sources [Slice] and [Generate],
// the [Record] type that the sources of records give and the record sinks
// write, the [Expr] type of the filters that the dataset sources
// evaluate, and the options that every source, or every source of files,
// takes.
//
// Every source splits its input into partitions numbered in serial order
// and gives each row a row ID by the rules of package [rowid]: the row's
// ordinal in its input combined with an ID of that input, so a row has the
// same ID whatever the parallelism. Sources are lazy: nothing is read until
// a run starts, and every run reads the same partitions again. A run's
// epochs, seed and rank are the pipeline's ([flow.Pipeline.Epochs],
// [flow.Pipeline.WithSeed], [flow.Pipeline.WithRank]), which every source
// reads from its [flow.Env].
//
// # Options
//
// Each kind of source takes its own option type: [SliceOption] for
// [Slice] and [Generate] (and the go-streams inputs of
// interop/gostreams, which read values in order too), parquet.Option for parquet.Read,
// text.CSVOption for text.CSV, text.JSONLOption for text.JSONL. Options
// shared by several satisfy each of their types: a text.Option is both a
// CSVOption and a JSONLOption, a [DatasetOption] (files, shuffling,
// Where, [SkipBad]) is taken by every source of files, and an [Option]
// ([ChunkSize], [Named]) by every source. Giving a source an option it does not take is a compile error.
// Option values are checked when the source is built; a bad one makes
// [flow.From] keep the error, which the run then returns.
//
// # Filters
//
// An [Expr] is one model for both filters of a Parquet source: [Where]
// on Hive partition values and parquet.RowFilter on file columns. Its
// literals are typed Go values, and it has a text form ([ParseExpr],
// [Expr.String]) for command lines.
package sources
