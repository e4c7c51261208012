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
// and [ParquetRecords], [CSVOption] for [CSV] and [CSVRecords],
// [JSONLOption] for [JSONL] and [JSONLRecords]. Options shared by several
// satisfy each of their types: a [TextOption] is both a CSVOption and a
// JSONLOption, a [DatasetOption] (files, shuffling, epochs, ranks, Where)
// is taken by every source of files, and an [Option] ([ChunkSize],
// [Named]) by every source. Giving a source an option it
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
//
// # CSV and JSON Lines
//
// A text file is read in parallel by splitting it into byte ranges that
// each start at a record; a range holds the records that start in it, and
// is read without the ranges before it, so the output is the same at every
// parallelism. Where a range starts is decided from the file alone, before
// reading: the first record start at or after the nominal split point. In
// JSON Lines a newline always ends a record (a JSON string cannot hold a
// raw newline), so finding it reads a few bytes. In CSV a newline may lie
// inside a quoted field; whether a byte is inside one is the parity of the
// quotes before it, exactly, in CSV as RFC 4180 (and encoding/csv) write
// it, because quotes inside a quoted field are doubled and unquoted fields
// hold none. So the split counts the file's quotes in one pass, at memory
// speed, and never cuts a record. A record's ordinal, for its row ID, is
// its byte offset: known to the range that reads it. Compressed files are
// one range each.
package sources
