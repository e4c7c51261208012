package determinism

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"reflect"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// header starts the hashed bytes of every stream. It names the version of
// the encoding, so that a later encoding cannot be mistaken for this one.
const header = "rowflow digest v1\n"

// flushSize is how many encoded bytes a Hasher gathers before hashing them.
const flushSize = 8 << 10

// Sum is the digest of a stream: the SHA-256 of its encoding (see the
// package documentation) and the number of items. Sums compare with ==.
// The zero Sum is not the digest of any stream; the empty stream's Sum
// has Count 0 and the SHA-256 of "rowflow digest v1\n" alone.
type Sum struct {
	Hash  [sha256.Size]byte
	Count int64
}

// String returns the hash as 64 lower-case hexadecimal digits. It leaves
// out the count.
func (s Sum) String() string { return hex.EncodeToString(s.Hash[:]) }

// Hasher computes the digest of a stream of items of type T, added in
// stream order: that of the items a program consumes itself, as a
// training loop digests the batches it reads with flow.Items. To digest a
// pipeline's stream, use [SumOf], which runs it. The zero value is not
// usable; make one with [NewHasher]. A Hasher is not safe for concurrent
// use.
//
// Hashing costs the encoding of each item (16 bytes of row ID, then the
// value) and SHA-256 of those bytes, which dominates: on an x86-64 server
// core with SHA extensions, about 30 ns per item for a stream of int64 and
// about 1 ns per byte of longer values (a []float32 of 128 elements, 529
// bytes, takes about 400 ns). Values in maps and interfaces add reflection
// and allocations: a map of 4 entries takes about 1 µs.
type Hasher[T any] struct {
	h   hash.Hash
	c   *codec
	s   state
	n   int64
	tmp T // Add's value, so that encoding it does not allocate
	// fallible says that encoding a T can fail (see mayFail): only then
	// does Add pay for recovering the encoder's panic.
	fallible bool
}

// NewHasher returns a Hasher for values of type T. It panics if T has no
// encoding (see the package documentation).
func NewHasher[T any]() *Hasher[T] {
	h := &Hasher[T]{h: sha256.New(), c: mustCodec[T](), fallible: mayFail(reflect.TypeFor[T](), nil)}
	h.reset()
	return h
}

// reset makes h the Hasher of an empty stream again.
func (h *Hasher[T]) reset() {
	h.h.Reset()
	h.s = state{b: append(h.s.b[:0], header...), scratch: h.s.scratch[:0]}
	h.n = 0
}

// Add adds the item with ID id and value v. It returns the error of a
// value that cannot be encoded (an interface holding a value of a type
// without an encoding, or nesting more than 10000 levels deep, whether in
// v or in a value that an AppendDigest method encodes with
// [AppendValue]); h is then unusable (make another with [NewHasher]).
func (h *Hasher[T]) Add(id rowid.ID, v T) error {
	h.tmp = v
	var err error
	if h.fallible {
		err = catchEncoding(func() { h.add(id, unsafe.Pointer(&h.tmp)) })
	} else {
		h.add(id, unsafe.Pointer(&h.tmp))
	}
	var zero T
	h.tmp = zero
	return err
}

// addChunk adds the items of c, in order, as Add does each. It ignores
// c.Part (see the package documentation) and does not keep c.
func (h *Hasher[T]) addChunk(c *flow.Chunk[T]) error {
	return catchEncoding(func() {
		for k := range c.Values {
			h.add(c.IDs.At(k), unsafe.Pointer(&c.Values[k]))
		}
	})
}

// encodingError is what the encoder panics with when a value cannot be
// encoded; catchEncoding turns it back into an error. It is an error
// itself, so that AppendValue panics with one.
type encodingError struct{ err error }

func (e encodingError) Error() string { return e.err.Error() }
func (e encodingError) Unwrap() error { return e.err }

// catchEncoding runs f, which encodes values, and returns the error that
// encoding panics with when a value cannot be encoded. Other panics go on.
func catchEncoding(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(encodingError)
			if !ok {
				panic(r) // not ours: a user's AppendDigest, say, with its stack
			}
			err = e.err
		}
	}()
	f()
	return nil
}

func (h *Hasher[T]) add(id rowid.ID, p unsafe.Pointer) {
	h.s.b = le.AppendUint64(le.AppendUint64(h.s.b, id.Lo), id.Hi)
	h.c.enc(&h.s, p)
	h.n++
	if len(h.s.b) >= flushSize {
		h.flush()
	}
}

func (h *Hasher[T]) flush() {
	h.h.Write(h.s.b)
	h.s.b = h.s.b[:0]
}

// Sum returns the digest of the items added so far. It does not change
// h: more items can be added afterwards.
func (h *Hasher[T]) Sum() Sum {
	h.flush()
	s := Sum{Count: h.n}
	h.h.Sum(s.Hash[:0])
	return s
}
