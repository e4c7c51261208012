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
// inside a quoted field, and a damaged record (a bare quote, a quote
// followed by other than a quote, the delimiter or the line's end) ends
// where encoding/csv stops reading it, at the end of its line. So the
// split follows the file from its start as encoding/csv reads it, from
// quote to quote, in one pass at about the speed of bytes.IndexByte: the
// ranges start at the records of a serial read, whatever the damage, and
// a split read with [SkipBadLines] gives the serial read's rows and
// report. A record's ordinal, for its row ID, is its byte offset: known
// to the range that reads it. Compressed files are one range each.
package sources
