package pqcol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors. Every error returned by this package is an [*Error] that
// wraps one of these (test with [errors.Is]) or an I/O or context error.
var (
	// ErrUnsupported reports a feature that the data needs but this package
	// (or parquet-go beneath it) cannot decode: a compression codec without
	// a decoder (the deprecated Hadoop LZ4 framing, LZO), an encoding
	// parquet-go does not implement for the column's physical type, or
	// encryption (of the footer or of column chunks).
	ErrUnsupported = errors.New("pqcol: unsupported")

	// ErrCorrupt reports data that violates the Parquet format: impossible
	// sizes, truncated pages, invalid levels, dictionary indexes out of range,
	// row or value counts that disagree with the metadata.
	ErrCorrupt = errors.New("pqcol: corrupt data")

	// ErrChecksum reports a page whose CRC-32 does not match its bytes.
	// An error that wraps ErrChecksum also wraps [ErrCorrupt].
	ErrChecksum = fmt.Errorf("%w: page checksum mismatch", ErrCorrupt)

	// ErrPageTooLarge reports a page that would decode to more than the limit
	// set with [MaxPageSize]. For the sizes and value counts a page header
	// declares, it is returned before the page is read or decompressed; for
	// DELTA_BYTE_ARRAY values, whose shared prefixes can multiply their
	// size, before they are decoded.
	ErrPageTooLarge = errors.New("pqcol: page exceeds the size limit")

	// ErrReadTooLarge reports a read whose decoded values and levels would
	// take more memory than the limit set with [MaxReadSize].
	ErrReadTooLarge = errors.New("pqcol: read exceeds the memory limit")

	// ErrTooLarge reports a byte array column buffer that would exceed 4 GiB
	// of data, the reach of its uint32 offsets. Read a smaller row range.
	ErrTooLarge = errors.New("pqcol: column buffer exceeds 4 GiB")

	// ErrArgument reports a row group, column or row range that does not
	// exist in the file.
	ErrArgument = errors.New("pqcol: invalid argument")
)

// Error describes where a failure happened. Fields that are not known are
// empty (Column) or -1 (RowGroup, Page, Offset, Row).
type Error struct {
	File     string // the name the caller gave the file
	RowGroup int    // row group index
	Column   string // dotted leaf column path
	Page     int    // ordinal of the page within the column chunk, dictionary page included
	Offset   int64  // file offset of the page header
	Row      int64  // row index within the row group where the page (or failure) starts
	Err      error  // the cause
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("pqcol: ")
	b.WriteString(e.File)
	if e.RowGroup >= 0 {
		b.WriteString(": row group ")
		b.WriteString(strconv.Itoa(e.RowGroup))
	}
	if e.Column != "" {
		b.WriteString(": column ")
		b.WriteString(strconv.Quote(e.Column))
	}
	if e.Page >= 0 {
		b.WriteString(": page ")
		b.WriteString(strconv.Itoa(e.Page))
		if e.Offset >= 0 {
			b.WriteString(" at offset ")
			b.WriteString(strconv.FormatInt(e.Offset, 10))
		}
	}
	if e.Row >= 0 {
		b.WriteString(": row ")
		b.WriteString(strconv.FormatInt(e.Row, 10))
	}
	b.WriteString(": ")
	b.WriteString(strings.TrimPrefix(e.Err.Error(), "pqcol: "))
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// PanicError is the cause recorded when decoding panicked (inside parquet-go
// or this package). It wraps [ErrCorrupt], since only malformed input is
// expected to reach such a panic.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the stack of the panicking goroutine
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("pqcol: corrupt data: decoder panicked: %v", e.Value)
}

// Unwrap returns [ErrCorrupt].
func (e *PanicError) Unwrap() error { return ErrCorrupt }

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}
