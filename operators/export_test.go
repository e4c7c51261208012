package operators

import "github.com/rowflow/rowflow/flow"

// The codecs of the disk cache, for the package's external tests.
type (
	GobCodec[T any]             = gobCodec[T]
	NumbersCodec[E fixedNumber] = numbersCodec[E]
)

// CacheWithCodec is [Cache] with its disk file's values encoded by c
// instead of the codec of T, for the external tests of a cache written
// with another codec.
func CacheWithCodec[T any](p *flow.Pipeline, c codec[T], opts ...CacheOption) flow.Source[T] {
	return newCache(p, c, opts)
}
