package pqwrite

import (
	"errors"
	"runtime"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
)

// Option configures a [Writer]. Options are checked by [NewWriter].
type Option func(*config) error

type config struct {
	codec       compress.Codec
	pageSize    int
	concurrency int
	createdBy   string
	keyValues   []format.KeyValue
}

func defaultConfig() config {
	return config{pageSize: DefaultPageSize, concurrency: runtime.GOMAXPROCS(0), createdBy: "rowflow"}
}

// DefaultPageSize is the data page size, before compression, that a
// Writer cuts pages at by default: parquet-go's default page buffer size.
const DefaultPageSize = 256 << 10

// Codec sets the compression of the pages. The default is none
// (UNCOMPRESSED); rowflow's sinks use [Zstd].
func Codec(c compress.Codec) Option {
	return func(cfg *config) error {
		cfg.codec = c
		return nil
	}
}

// PageSize sets the size in bytes, PLAIN-encoded and before compression,
// at which data pages are cut. A page holds whole rows, so one may be
// larger. It must be positive; the default is [DefaultPageSize].
func PageSize(n int) Option {
	return func(cfg *config) error {
		if n <= 0 {
			return errors.New("pqwrite: the page size must be positive")
		}
		cfg.pageSize = n
		return nil
	}
}

// Concurrency sets how many column chunks of a row group are encoded at
// once. With 1 they are encoded one after another on the calling
// goroutine. The bytes written do not depend on it. It must be positive;
// the default is GOMAXPROCS.
func Concurrency(n int) Option {
	return func(cfg *config) error {
		if n <= 0 {
			return errors.New("pqwrite: the concurrency must be positive")
		}
		cfg.concurrency = n
		return nil
	}
}

// CreatedBy sets the footer's created_by. The default is "rowflow".
func CreatedBy(s string) Option {
	return func(cfg *config) error {
		cfg.createdBy = s
		return nil
	}
}

// KeyValue adds a key-value pair to the footer's metadata, after those
// added before. There are none by default.
func KeyValue(key, value string) Option {
	return func(cfg *config) error {
		cfg.keyValues = append(cfg.keyValues, format.KeyValue{Key: key, Value: value})
		return nil
	}
}
