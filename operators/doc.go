// Package operators holds the transformations of a rowflow pipeline, each a
// [flow.Stage] to chain with [flow.Pipeline.Via].
//
// # Row IDs
//
// Operators keep the row-ID rules of package [rowid]: [Map] and [Filter]
// pass IDs through unchanged; the k-th output of [FlatMap] for an input with
// ID id gets id.Fork() followed by k calls of Next.
//
// # Parallelism
//
// [Map], [Filter] and [FlatMap] work on one element at a time and may run
// on several workers with [flow.Pipeline.Parallel]; their functions are
// then called concurrently and must be safe for that. [Take] counts across
// partitions and is serial.
//
// # Errors and panics
//
// An error returned by a user function fails the run with a
// [flow.StageError] that names the stage, the batch and the row ID of the
// element. A panic in a user function is turned into such an error too.
package operators
