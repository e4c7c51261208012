// Package pqwrite is rowflow's own Parquet write path: typed column
// buffers encoded into column chunks, and a file writer around them, as
// package pqcol is rowflow's own read path.
//
// # Why
//
// parquet-go's GenericWriter boxes every value into a parquet.Value and
// goes through its generic column buffers; on rowflow's ETL jobs that costs
// about as much as compressing. Here a caller appends values to the typed
// slices of a [Column] (no per-value allocation), and [Writer.WriteRowGroup]
// encodes the row group's column chunks in parallel, each into its own
// buffer, and writes them in column order.
//
// # What is rowflow's and what is parquet-go's
//
// Page cutting, the PLAIN value encoding, statistics (bounds in the
// column's order: unsigned integers where the logical type says so, NaNs
// left out as parquet-go leaves them out, a zero minimum written -0.0
// and a zero maximum +0.0 as the format asks), the column and offset indexes,
// the chunk metadata and the file layout are this package's. parquet-go
// supplies the footer's thrift structures (package format) and their
// encoding (package thrift), the RLE/bit-packed level encoder (package
// rle), and the schema's footer form, read from an empty file it writes
// (see schemaOf), so that schema elements are exactly those parquet-go
// writes and reads.
//
// # Scope
//
// Every physical type is written. Data pages are v1, with RLE/bit-packed
// levels and PLAIN values; DELTA_BINARY_PACKED for an integer leaf whose
// schema node asks for it (the sinks' row-ID columns) or whose first
// values are close (see delta.go); or RLE_DICTIONARY indexes for a
// BYTE_ARRAY column whose first values repeat (see dict.go), with a
// fallback to PLAIN once a chunk's dictionary takes 1 MiB. Both are
// decided per column of a file. Bloom filters are not written. Byte array bounds in the
// column index are truncated to 16 bytes, as parquet-go truncates them by
// default (but a maximum whose prefix is all 0xFF bytes is kept whole,
// where parquet-go would store a bound below it). DECIMALs in byte arrays
// are ordered as signed integers, as the format says (parquet-go orders
// them as unsigned bytes), and their bounds are kept whole.
//
// # Users
//
// The sinks of sinks/shards write with it: shards.Parquet of records
// puts each record's values straight into the typed columns with its
// shredders, of column batches copies their values and levels, and of
// structs copies each leaf of a run of structs from their memory. Parquet's structs with maps or
// interfaces are still written by parquet-go's GenericWriter.
//
// # Determinism
//
// The bytes of a file are a function of the schema, the options other
// than [Concurrency], and the columns written, for a given version of this
// package and its dependencies: chunks are encoded independently and
// written in order, whatever the scheduling.
//
// # Zstd
//
// [Zstd] is a Parquet zstd codec that replaces parquet-go's: parquet-go's
// zstd codec leaves the literals of a page raw when the encoder finds no
// match in it, at its default level, so a column of numbers without
// repeats (random 17-bit integers in INT32, say) is stored at its full
// size, where the reference zstd library, and so DuckDB, entropy-codes
// them to about two thirds.
//
// [NewAdaptiveZstd] chooses the level per column of a file: the column's
// first page is compressed at the fastest level and at the default one,
// and the column goes on at the default level only if it saved more than
// 2% there. (Choosing per column chunk cost more than it saved where row
// groups hold few pages.)
// On a page of text made of repeated words the default level saves about
// 8%; on numbers, hashes and other dense values the two are within 1%,
// or the fastest level wins, and it takes about half the time. A probe of
// a page's first 16 KiB, tried first, chose badly: on random hex text the
// default level wins by 3% on 16 KiB and loses by 0.8% on 256 KiB. The
// choice depends on the file's data alone.
package pqwrite
