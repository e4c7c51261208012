// Package sources holds the inputs of a rowflow pipeline, each a
// [flow.Source] to start a pipeline with [flow.From].
//
// Every source splits its input into partitions numbered in serial order
// and gives each row a row ID by the rules of package [rowid]: the row's
// ordinal in its input combined with an ID of that input, so a row has the
// same ID whatever the parallelism. Sources are lazy: nothing is read until
// a run starts, and every run reads the same partitions again.
//
// # Options
//
// Each kind of source takes its own option type: [SliceOption] for
// [Slice] and [Generate], [ParquetOption] for [Parquet], [ParquetColumns]
// and [ParquetRecords]; the options every source takes ([ChunkSize],
// [Named]) are an [Option], which is both. Giving a source an option it
// does not take is a compile error. Option values are checked when the
// source is built; a bad one makes [flow.From] keep the error, which the
// run then returns.
//
// # Filters
//
// A [Filter] is one model for both filters of a Parquet source: [Where]
// on Hive partition values and [RowFilter] on file columns. Its literals
// are typed Go values, and it has a text form ([ParseFilter],
// [Filter.String]) for command lines.
package sources
