// Package determinism checks rowflow's promise that a pipeline's output is
// a pure function of its input, definition and seed, never of its
// parallelism or timing.
//
// It has three tools:
//
//   - A digest ([Sum]) that condenses a stream's row IDs and values, in
//     order, into a SHA-256 hash and a count. Equal streams give equal
//     sums on every machine and in every version of this package. [SumOf]
//     runs a pipeline and digests its stream; a [Hasher] digests items
//     that a program consumes itself, such as the batches a training
//     loop reads with flow.Items.
//   - [Verify], which runs a pipeline at parallelism 1 and at several
//     others and reports the first item where they differ as a
//     [*Divergence], down to the first differing field of the value
//     (".Rows[17].Text"); [Compare] does the same for two pipelines.
//   - Golden files: [CheckGolden] writes a stream's digest, and the
//     digest of each partition and item, to a text file, or compares a
//     later run with it, naming the first partition and row that differ;
//     a test's -update flag chooses which.
//
// # What a digest covers
//
// A digest covers each item's row ID and value, in stream order. It does
// not cover partition numbers: they describe how a source split its input into
// partitions, and a change of partition size, or a source that plans its
// row groups differently, renumbers batches while the rows, their IDs and
// their order stay the same. Such a change keeps the digest. [Verify],
// which compares runs of one pipeline, does compare partition numbers.
//
// Nor does a digest cover the value's type: two streams whose values have
// different types but the same encoding (an int64 and a time.Duration, a
// string and a []byte) give the same digest.
//
// # The encoding
//
// The digest is the SHA-256 of the bytes
//
//	"rowflow digest v1\n"  item₀  item₁  …
//
// where each item is its row ID, Lo then Hi, each as 8 bytes
// little-endian, followed by the encoding of its value. The encoding of a
// value is determined by its type, by the first rule that applies:
//
//   - Appender: if *T has the method AppendDigest (see [Appender]), the
//     length of what it appends, as a uvarint, then those bytes.
//   - time.Time: the Unix time in seconds (t.Unix()) as 8 bytes, then the
//     nanoseconds within the second (t.Nanosecond()) as 4 bytes. Instants
//     that are Equal encode alike, whatever their location; the monotonic
//     clock reading is ignored. (Unix nanoseconds would not fit every
//     time.Time, the zero one included.)
//   - bool: one byte, 0 or 1.
//   - int8, uint8: one byte; int16, uint16: 2 bytes; int32, uint32: 4
//     bytes; int64, uint64: 8 bytes; int, uint and uintptr: 8 bytes, sign-
//     or zero-extended, on every platform. Two's complement, little-endian.
//   - float32, float64: the IEEE 754 bits (math.Float32bits,
//     math.Float64bits) as 4 or 8 bytes. Nothing is canonicalised: -0 and
//     +0 differ, and NaNs encode their payload.
//   - complex64, complex128: the real part, then the imaginary part, as
//     floats.
//   - string: the length in bytes as a uvarint, then the bytes.
//   - slice: the length as a uvarint, then each element. A nil slice
//     encodes as an empty one, and a []byte as a string.
//   - array: each element; the length is part of the type.
//   - struct: each field in declaration order, exported or not, embedded
//     or not; blank (_) fields are skipped. A rowid.ID is thus Lo then Hi.
//   - pointer: the byte 0 if nil; otherwise the byte 1, then the encoding
//     of the value pointed to.
//   - map: the number of entries as a uvarint, then each entry as its key's
//     encoding followed by its value's, the entries in increasing byte
//     order of their encodings (so by key, and by value between keys that
//     encode alike, such as NaNs). Go's iteration order plays no part. A
//     nil map encodes as an empty one.
//   - interface: the byte 0 if nil; otherwise the byte 1, the name of the
//     dynamic type as a uvarint length and bytes, then the encoding of the
//     dynamic value. The name of a defined type is its package path, a dot
//     and its name ("time.Duration", "example.com/data.Row"); that of any
//     other type is reflect.Type.String ("int", "[]interface {}"); a type
//     defined inside a function is named as if it were defined at package
//     level. Renaming or moving a type held in interfaces changes digests.
//   - chan, func, unsafe.Pointer: no encoding. Nor has a type with one of
//     them anywhere in it, except in a blank (_) field, in an array of
//     length 0 or inside a type with an AppendDigest method. [SumOf],
//     [Verify], [Compare], [CompareByID], [Bisect] and [CheckGolden]
//     check T before they run anything, and return an error that names
//     the part of T that has no encoding ("v.F has type func()");
//     [NewHasher] and [AppendValue] panic with that error. A value that T
//     holds in an interface is checked when it is encoded: one that has no
//     encoding is then an error of the run or of [Hasher.Add], and a
//     panic of AppendValue.
//
// A uvarint is encoding/binary's unsigned varint (LEB128). A defined type
// is encoded by the rule of its underlying type, unless the Appender or
// time.Time rule applies to it.
//
// For a given type, every value's encoding is self-delimiting, so the
// bytes of a stream determine its items, and distinct values have distinct
// encodings, except where stated above (nil and empty, the location of a
// time) and as far as AppendDigest methods keep theirs distinct. Values
// must not be cyclic: a value nested more than 10000 levels deep through
// pointers, slices, maps or interfaces cannot be encoded, which is an
// error of the run or of [Hasher.Add], and a panic of AppendValue.
//
// # Costs
//
// Encoders are built once per type, on first use, by reflection, and
// cached. Encoding a number, a string or a struct or array of them then
// uses no reflection; slices and arrays of fixed-size numbers are copied
// as whole blocks on little-endian machines. Maps, interfaces and
// Appender values use reflection for every value, and maps and interfaces
// allocate.
package determinism
