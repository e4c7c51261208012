// Package rowid provides 128-bit row IDs: values that identify each row of a
// pipeline, the same in every run, however the work is split up.
//
// # What an ID is
//
// An [ID] is a pair of 64-bit words, Lo and Hi, read as the unfinished state
// of a MurmurHash3 x64_128 hash: Lo is h1 and Hi is h2. Deriving one ID from
// another runs one round of the hash over the state, so derived IDs look
// unrelated to each other while the derivation stays cheap and exact. The
// state is never finalised, because an ID only has to be distinct from the
// others, not to have well-mixed bits. Consecutive ordinals combined with
// one file's ID differ in only a few bits, so an ID is no substitute for a
// hash whose bits must be uniform (to pick a shard, say). IDs are plain
// values; they compare with == and can be map keys. The zero ID is valid.
//
// The operations are bit-compatible with ML.NET's DataViewRowId (Low is Lo,
// High is Hi), so IDs can be checked against it.
//
// # Operations
//
//   - [Ordinal](i) is {Lo: i, Hi: 0}, the ID of the i-th item of an
//     enumeration.
//   - [ID.Next] is the state after hashing a block of 16 zero bytes: the next
//     ID of a sequence.
//   - [ID.Fork] is Next with a fixed constant xored into Lo: the start of a
//     new sequence, distinct from Next.
//   - a.Combine(b) ([ID.Combine]) is a's state after hashing the 16 bytes of
//     b.Fork(). It is not commutative. For a fixed b it is a bijection of a,
//     so distinct IDs combined with the same b stay distinct. [Combiner]
//     precomputes the b side when one ID is combined with many.
//   - [FromString] is the full, finalised MurmurHash3 x64_128 (seed 0) of
//     its input: the ID of a named thing.
//
// None of the operations allocates. On a current x86-64 core, Next, Fork
// and Combiner.Combine take 1 to 2 ns, Combine about 5 ns (it prepares its
// argument each time, as NewCombiner does), and FromString about 12 ns for
// a short name plus 3 ns per 16 bytes.
//
// # Text form and order
//
// The text form ([ID.String], [ID.AppendText], [ID.MarshalText]) is 32
// lower-case hexadecimal digits, Hi first, then Lo, as ML.NET prints it.
// [Parse] and [ID.UnmarshalText] accept exactly 32 hexadecimal digits in
// either case. IDs marshal to JSON as strings.
//
// [ID.Compare] orders IDs by Hi, then Lo, which is the order of their text
// forms; slices.SortFunc(ids, ID.Compare) sorts a slice. This order is only
// a total order for sorting and searching: it is unrelated to the order in
// which rows were read or written.
//
// # Acceptable sets
//
// A pipeline's IDs stay collision-free when every stage derives its output
// IDs from its input IDs by these rules; a set of IDs built by them is an
// "acceptable set". Within one scope, one sequence or one input, distinct
// IDs cannot collide, because each operation is a bijection of its ID for a
// fixed other argument. Across scopes, sequences and inputs, distinctness is
// probabilistic, as for any 128-bit hash: the rounds make derived IDs look
// unrelated, and the package's tests build over ten million IDs by these
// rules without a collision. An ID built outside the rules (an ordinal
// reused within a scope, two inputs given the same ID) can collide.
//
//  1. Enumerating ordinals is acceptable. A source gives row i the ID
//     Ordinal(i).Combine(scope), where scope is the ID that i counts within:
//     the file's ID when i counts the rows of the whole file, or a
//     per-partition ID such as file.Combine(Ordinal(p)) for partition p when
//     i restarts at 0 in every partition (a Parquet row group, a CSV byte
//     range). Within one scope, distinct ordinals give distinct IDs. Such
//     IDs never depend on shuffle order, sharding or parallelism: the same
//     row has the same ID in every run.
//  2. A subset is acceptable. Filters and 1:1 maps pass the ID through
//     unchanged.
//  3. 1:N (flat-map, splitting): the k-th output (k = 0, 1, ...) of the input
//     with ID id gets id.Fork() followed by k applications of Next.
//  4. Several inputs (mixing datasets, joins, zips): give each input a
//     distinct ID and combine every element's ID with it, elem.Combine(input).
//  5. N:1 (batching, reductions): the operator documents what it does; the
//     default folds the member IDs, in order, into a fixed per-operator ID:
//     acc := op; for each member m, acc = acc.Combine(m).
//
// # Naming files, inputs and operators
//
// The scope of rule 1, the input of rule 4 and the operator of rule 5 are
// IDs of named things, usually [FromString] of a name. A name must be stable
// across runs (a path relative to the dataset root, not a temporary file
// name) and distinct from every other name it can meet in the same
// pipeline; two files with the same name would enumerate the same IDs.
//
// # IDs are not positions
//
// An ID identifies a row; it does not say where the row is. A position such
// as "row 17 of the epoch" cannot be known in parallel once a filter has run,
// so nothing in a pipeline depends on one. The serial order is carried by
// partition numbers; IDs only tell rows apart, to deduplicate them, to key
// per-row state, or to match one run's output against another's.
package rowid
