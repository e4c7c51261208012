package determinism

import (
	"context"
	"reflect"

	"github.com/rowflow/rowflow/flow"
)

// MaxGoldenRows is the most items a stream may have for its golden file
// to list its rows.
const MaxGoldenRows = maxGoldenRows

// Encodable returns the error of a type T that has no encoding (see
// encodable).
func Encodable[T any]() error { return encodable[T]() }

// Record writes p's golden file at path and returns the stream's digest,
// as CheckGolden with update true does.
func Record[T any](ctx context.Context, p *flow.Pipeline, path string) (Sum, error) {
	return recordFile[T](ctx, p, path)
}

// Check compares p's stream with the golden file at path, as CheckGolden
// with update false does.
func Check[T any](ctx context.Context, p *flow.Pipeline, path string) error {
	return checkFile[T](ctx, p, path)
}

// ResetHasher makes h the Hasher of an empty stream again, as Bisect does
// between partitions.
func ResetHasher[T any](h *Hasher[T]) { h.reset() }

// AddChunk adds the items of c to h, as SumOf adds each chunk it reads.
func AddChunk[T any](h *Hasher[T], c *flow.Chunk[T]) error { return h.addChunk(c) }

// MayFail reports whether encoding a T can fail when it runs (see
// mayFail).
func MayFail[T any]() bool { return mayFail(reflect.TypeFor[T](), nil) }
