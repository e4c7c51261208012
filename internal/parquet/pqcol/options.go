package pqcol

import "fmt"

// DefaultMaxPageSize is the default limit on the decoded size of one page:
// 256 MiB. See [MaxPageSize].
const DefaultMaxPageSize = 256 << 20

// DefaultMaxReadSize is the default limit on the memory one read may fill
// a Column with: 128 MiB. See [MaxReadSize].
const DefaultMaxReadSize = 128 << 20

// An Option configures a [Reader]. Options are checked when the reader is
// built; an invalid option makes [NewReader] and [Open] fail.
type Option func(*config) error

type config struct {
	maxPageSize    int64
	maxReadSize    int64
	verifyChecksum bool
	ignoreIndex    bool  // do not use offset indexes (tests exercise the scan path with it)
	learnGap       int64 // the least distance between learned page starts (tests lower it)
}

func defaultConfig() config {
	return config{maxPageSize: DefaultMaxPageSize, maxReadSize: DefaultMaxReadSize, verifyChecksum: true, learnGap: learnGap}
}

// MaxPageSize limits the decoded size of a single page to n bytes. The limit
// is checked against the sizes declared in the page header, before the page
// is decompressed; see "Safety" in the package documentation for exactly what
// is checked. The default is [DefaultMaxPageSize]; n must be positive.
func MaxPageSize(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("%w: MaxPageSize(%d): the limit must be positive", ErrArgument, n)
		}
		c.maxPageSize = n
		return nil
	}
}

// MaxReadSize limits the memory that one read ([Reader.ReadColumn] or
// [Reader.ReadColumnRange]) may fill its [Column] with to n bytes: values
// (a BYTE_ARRAY value counts its bytes and its 4-byte offset), definition
// and repetition levels. [MaxPageSize] bounds each page, but pages under
// it can still decode to far more than they store: a dictionary value
// repeated by every index of a page, a page of millions of nulls, or many
// pages of one chunk that each decompress to the limit. A read that would
// pass n bytes fails with [ErrReadTooLarge] before the page that would
// pass it is appended (before its values are decoded, except for
// encodings whose decoded size is known only by decoding them, which are
// bounded by MaxPageSize). The default is [DefaultMaxReadSize]; n must be
// positive. Reading fewer rows at once (ReadColumnRange) keeps legitimate
// large row groups under it. A caller that reads several columns of one
// fragment bounds them together by setting [Column.Charged] before each
// read.
func MaxReadSize(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("%w: MaxReadSize(%d): the limit must be positive", ErrArgument, n)
		}
		c.maxReadSize = n
		return nil
	}
}

// VerifyChecksums controls whether page CRC-32 checksums are verified when a
// page header carries one. The default is true.
func VerifyChecksums(verify bool) Option {
	return func(c *config) error {
		c.verifyChecksum = verify
		return nil
	}
}
