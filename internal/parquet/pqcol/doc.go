// Package pqcol decodes Parquet column chunks page by page into reusable
// typed column buffers.
//
// It is the fast path under rowflow's Parquet source. parquet-go's
// GenericReader spends most of its time in reflection and builds a
// parquet.Value per value; pqcol instead reads a column chunk's pages itself
// and decodes each page's levels and values straight into the typed slices of
// a [Column], which the next read reuses. Mapping columns to Go structs,
// dynamic records or columnar batches is left to the caller.
//
// # Use
//
// [Open] a file (or wrap one opened with parquet-go using [NewReader]), then
// call [Reader.ReadColumn] for a whole column chunk or
// [Reader.ReadColumnRange] for rows [from, to) of one. [Reader.Leaves]
// describes the leaf columns: path, schema node, physical type and maximum
// levels, which a caller needs to interpret DefLevels and RepLevels.
//
// A Reader is safe for concurrent use; a Column is not. Use one Column per
// goroutine and per column being kept.
//
// # What is decoded
//
// Values keep their physical type (BOOLEAN, INT32, INT64, INT96, FLOAT,
// DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY); logical types (strings, dates,
// decimals, timestamps) are not applied. Values are dense: nulls are present
// only in the definition levels.
//
// Data pages v1 and v2 and dictionary pages are read. The encodings are
// decoded by parquet-go's encoding packages, straight into the Column's
// slices: PLAIN, RLE (levels and booleans), BIT_PACKED levels,
// PLAIN_DICTIONARY and RLE_DICTIONARY, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT. DELTA_BINARY_PACKED integers
// are decoded here, in 64-bit arithmetic: an INT32 value is the low 32
// bits of the sum, as arrow-go and DuckDB read it, so INT32 (and UINT_32)
// pages whose deltas were computed in 64 bits (mini-blocks of bit width 33
// or more, a first value above 2^31; DuckDB writes them) read right, where
// parquet-go's decoder returns wrong numbers or fails.
// Dictionary pages are decoded once per chunk into typed slices and data
// pages' indexes are resolved by typed loops, so no value goes through an
// interface call. Pages are decompressed by parquet-go's codecs (SNAPPY,
// ZSTD) or, where those cannot bound their output (GZIP, BROTLI, LZ4_RAW;
// see Safety), by the libraries they wrap. The deprecated Hadoop LZ4 codec,
// LZO, encrypted footers and encrypted column chunks are reported as
// [ErrUnsupported].
//
// Rows of repeated columns are counted by repetition level 0, so a row whose
// values continue from one data page v1 into the next is read whole.
//
// # Row ranges
//
// [Reader.ReadColumnRange] lets a caller split a large row group into
// sub-partitions of a bounded number of rows. With an offset index (the
// "page index") the pages before the range are not read at all. Without
// one, the headers of earlier pages are read and the pages skipped; only
// the data pages of repeated columns, whose rows their levels tell, are
// read further (the levels of a page v2, unless its checksum is verified)
// and only pages v1, whose levels are compressed, decompressed. Each read
// notes the pages it passes that start a row, and later reads of the chunk
// through the same Reader start at the last of them at or before their
// first row, so that a row group read in k ranges is read about once
// rather than k/2 times over. The starts kept lie at least 64 KiB apart,
// and a Reader keeps a bounded number of them (see learn.go). Reading
// stops at the page where the range ends.
//
// A page that holds rows outside the range is decompressed whole, but the
// Column receives only the values of the range: PLAIN values are cut
// from the page before decoding, others are decoded into the read's own
// buffers and the range copied out. Those buffers, like the pages', are
// borrowed for the read and shared by the reads that follow, so a Column
// holds its values and levels and nothing else, however large the pages
// it was read from (DuckDB writes one page per column chunk, which every
// range of the row group reads).
//
// Such a page is decompressed once for all the ranges that need it: the
// first read leaves it, decompressed, for the reads of its other rows,
// which wait for it if it is being decompressed (see share.go). A page
// leaves once its rows are all read, when the pages left pass 64 MiB
// (oldest first), or when its Reader is closed ([Reader.Close]). Values
// and errors are those of a read that decompresses every page itself.
//
// # Page indexes
//
// [Reader.OffsetIndex] and [Reader.ColumnIndex] return a column chunk's
// page index, if the file has one: where each data page lies and which
// rows it starts at, and each page's bounds, null count and whether it
// holds only nulls. A caller can use them to find the rows whose pages
// may hold the values it wants, and read only those with
// ReadColumnRange. Each is read once per column chunk, when first asked
// for, and kept.
//
// # Safety
//
// Input is untrusted. Every error is an [*Error] naming the file (as the
// caller named it) and, for reads, the row group, the column and, where
// known, the page, its file offset and the row it starts at (errors from
// [Open] concern the footer and name the file only); the cause is wrapped
// with %w and
// is one of [ErrCorrupt], [ErrChecksum], [ErrUnsupported],
// [ErrPageTooLarge], [ErrReadTooLarge], [ErrTooLarge], [ErrArgument], an I/O error or the
// context's error. Panics raised while decoding (in parquet-go or here) are
// recovered and returned as a [*PanicError] cause.
//
// A decompression bomb is stopped before it is decompressed. Before a page
// is decompressed, and before its stored bytes are read, the sizes its
// header declares are checked against [MaxPageSize] (default
// [DefaultMaxPageSize], 256 MiB): the stored size, the uncompressed size,
// and the declared number of values times the memory each takes once
// decoded (a page of a million nulls can be a few bytes long). No codec may
// then produce, or allocate for, more than the declared size: a snappy
// block's stated length is checked before decoding, every zstd frame of a
// page decodes into a buffer of the declared size (a frame that states a
// larger content size fails before anything is allocated for it, one that
// states none stops when the buffer is full), LZ4_RAW is decoded into a
// buffer of exactly the declared size, and GZIP, BROTLI and zstd frames
// without a content size are read through streaming decoders that stop
// there and check the context every MiB. A page's decompression is thus
// bounded by MaxPageSize in memory and in time. The column chunk's
// TotalUncompressedSize is not used as a limit, since a chunk may
// legitimately hold many pages.
//
// Pages under the limit can still amplify: one dictionary value repeated
// by every index of a page, pages of millions of nulls, many pages of one
// chunk that each decompress to the limit. [MaxReadSize] (default
// [DefaultMaxReadSize], 128 MiB) bounds what one read may fill its
// Column with, values and levels; a read that would pass it fails with
// [ErrReadTooLarge], naming the file, row group, column and page, before
// that page's values are appended.
//
// Row counts are checked before anything is planned from them: [Open]
// refuses a footer whose row group declares rows its column chunks cannot
// hold (each row takes one level entry of each leaf column that is not
// repeated and at least one of each that is, and a chunk of b stored bytes
// holds at most b/8+1 pages of at most MaxPageSize values). A read that
// reaches the end of a row group goes on to the end of the column chunk,
// so that pages holding more rows or values than the footer declares fail
// as corrupt rather than being dropped.
//
// Encoded streams can be bombs too: parquet-go's decoders trust the counts
// inside RLE runs and DELTA headers (a few bytes can ask for two billion
// values) and allocate for them. pqcol walks those headers first. It hands
// parquet-go only the RLE runs that hold the page's values, the last one cut
// to what the page needs, so that runs padded far past the page's values
// (DuckDB writes every bit-packed run as 256 values) read and runs claiming
// billions cost no more than the page's values; it refuses
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY streams that claim far more
// values than the page declares, and DELTA_BYTE_ARRAY pages whose values
// would decode to more than MaxPageSize bytes. Likewise [Open] walks the
// footer's thrift encoding before parquet-go decodes it, so that a footer of
// a few bytes cannot claim a list of millions of elements, and reads page
// indexes the same way, after checking that their byte ranges lie within the
// file.
//
// Page CRC-32 checksums (IEEE, over the page bytes as stored) are verified
// when a page header carries one, before decompression; see
// [VerifyChecksums]. A checksum of 0 is indistinguishable from an absent
// one and is not verified. Pages that a row range jumps over by the offset
// index, or passes over by the row counts their headers give, are not
// read, so not verified. A read that takes a page v1 that the read of
// another range decompressed (see Row ranges) does not read it again:
// that read verified it.
//
// Checks that turn malformed input into errors rather than wrong data
// include: page and level sizes against the chunk and page bounds, levels
// above the column's maximum, repetition levels that add an element to a
// list the entry before left null or empty, dictionary indexes outside the
// dictionary, fewer decoded values than declared, byte array offsets out of
// order, a column chunk (or a data page v2) that starts inside a row, and,
// for whole-chunk reads, the chunk's value and row counts against its
// metadata and its row group, and for reads to a row group's end, the
// pages' row and value counts against the footer's.
//
// Some files that Arrow and DuckDB read and parquet-go refuses are read as
// they read them. A footer key-value entry without a value (the format allows it;
// parquet-go's metadata cannot hold it) is dropped, so its value reads as
// absent. A column chunk that starts with its dictionary page may declare a
// TotalCompressedSize that leaves out that page's header (parquet-mr up to
// 1.2.8, PARQUET-816) or the whole page (older fastparquet): its pages are
// read that far past the declared end, within the file, and no further.
//
// # Costs
//
// A read holds one window of the column chunk's stored bytes (1 MiB, or
// the largest page if bigger), one decompressed page and the decoded
// dictionary, besides the Column itself.
package pqcol
