// Package text reads datasets of CSV and JSON Lines files, plain or
// compressed: [CSV] and [JSONL] each return a [flow.Source] to start a
// pipeline with [flow.From]. Their type parameter says what a record
// becomes: a struct, a [sources.Record], or a *parquet.ColumnBatch of
// text columns (for shards.Parquet).
//
// # Options
//
// [CSV] takes a [CSVOption], [JSONL] a [JSONLOption]; an [Option]
// ([Compression], [PartitionBytes]) is both, and so are the options of
// package sources that every source of files takes (sources.Files,
// sources.ShuffleWindow, sources.Where, sources.WholeFiles,
// sources.SkipBad, sources.ChunkSize, sources.Named).
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
// report. Compressed files are one range each.
//
// # Row IDs
//
// A record's ID is rowid.Ordinal(x).Combine(rowid.FromString(rel)), rel
// being its file's slash-separated path relative to the dataset's root,
// and x its ordinal: the record that starts at byte b of the file (of its
// decompressed bytes; blank lines before a record are not part of it), in
// the block of 65,536 bytes k = b / 65,536, has the ordinal
// 65,536·k + n, n being the newlines from the block's start to b. Within a
// block the ordinals count lines; they increase along the file, and jump
// once a block. So the ID is the same whatever the byte ranges, the
// parallelism or the ranks, read whole or compressed; a range knows its
// records' ordinals from its own bytes and at most 64 KiB before it (line
// numbers would need all the lines before it); and a lineage column of
// them (shards.RowIDColumn) costs a few bits a block rather than the bits
// of every line's length, as byte offsets would.
package text
