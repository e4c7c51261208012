// Package text reads datasets of CSV and JSON Lines files, plain or
// compressed: [CSV] and [JSONL] decode records into structs,
// [CSVRecords] and [JSONLRecords] give [sources.Record]s, and
// [CSVColumns] and [JSONLColumns] column batches (for
// shards.ParquetColumns). Each is a [flow.Source] to start a pipeline
// with [flow.From].
//
// # Options
//
// [CSV], [CSVRecords] and [CSVColumns] take a [CSVOption], [JSONL],
// [JSONLRecords] and [JSONLColumns] a [JSONLOption]; an [Option] ([Compression], [PartitionBytes]) is both,
// and so are the options of package sources that every source of files
// takes (sources.Files, sources.ShuffleWindow, sources.Where,
// sources.WholeFiles, sources.SkipBad, sources.ChunkSize, sources.Named).
// Giving a source an option it does not take is a compile error. Each
// option's doc states its default.
//
// # Splitting files
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
// a split read with [sources.SkipBad] gives the serial read's rows and
// report. A record's ordinal, for its row ID, is its byte offset: known
// to the range that reads it. Compressed files are one range each.
package text
