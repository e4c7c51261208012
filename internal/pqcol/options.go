package pqcol

import "fmt"

// DefaultMaxPageSize is the default limit on the decoded size of one page:
// 256 MiB. See [MaxPageSize].
const DefaultMaxPageSize = 256 << 20

// An Option configures a [Reader]. Options are checked when the reader is
// built; an invalid option makes [NewReader] and [Open] fail.
type Option func(*config) error

type config struct {
	maxPageSize    int64
	verifyChecksum bool
	ignoreIndex    bool // do not use offset indexes (tests exercise the scan path with it)
}

func defaultConfig() config {
	return config{maxPageSize: DefaultMaxPageSize, verifyChecksum: true}
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

// VerifyChecksums controls whether page CRC-32 checksums are verified when a
// page header carries one. The default is true.
func VerifyChecksums(verify bool) Option {
	return func(c *config) error {
		c.verifyChecksum = verify
		return nil
	}
}
