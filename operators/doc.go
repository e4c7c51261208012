// Package operators holds the transformations of a rowflow pipeline, each a
// [flow.Stage] to chain with [flow.Pipeline.Via], and the sources made of
// other sources or pipelines: [Concat], [Interleave] and [Mix] combine
// pipelines of one type, [IndexShuffle] reads a random-access source in a
// random order, [Cache] replays a pipeline, [EvenRanks] divides a source
// among ranks.
//
// # Row IDs
//
// Operators keep the row-ID rules of package [rowid]: [Map] and [Filter]
// pass IDs through unchanged; the k-th output of [FlatMap] for an input with
// ID id gets id.Fork() followed by k calls of Next.
//
// # Batches, partitions and regrouping
//
// [Batch] makes training batches: each output item's value is a [Rows]
// holding the member values and their row IDs. An item's Part field is
// something else: the number of the input partition it came from (a
// Parquet row group, a slice range), which the ordered merge sorts on. The
// two are kept apart by name: a training batch is always a value of type
// Rows (or the output of [Pad], [Pack]) produced by a stage, and the
// partition number is the Part field, a name no one reads as a batch.
//
// Stages that regroup rows ([Batch], [ReduceEvery], [ReduceRuns]) keep
// state across partitions and are serial: they run after the ordered
// merge, so what they emit depends on the serial order only, never on the
// parallelism. They number their own output partitions 0, 1, 2, … (each
// [PartitionItems] items), so that a Parallel stage can follow them.
// A group never spans two epochs: the first row of a new epoch ends the
// previous epoch's last group as the end of the stream would (a short
// batch or fold kept, dropped or padded as the stage's options say; a run
// of [ReduceRuns] even where the next epoch starts with the same key), and
// the new epoch's output partitions start again from 0.
// Their output IDs follow the N:1 rule: the stage's fixed ID,
// rowid.FromString of its name, combined with each member's ID in order.
//
// What such a stage must remember to be resumed is small: its processor
// implements flow.Checkpointer and reports, after every chunk it pushes, a
// state (opaque inside the checkpoint) with the [flow.Mark] (input partition
// and row) of the oldest row it still holds, its output partition and the items of it delivered,
// and the table or pool number of the random stages. A processor resumed
// from that state (flow.Env.Resume) and fed its input from that mark gives
// the rest of its output unchanged. For [Pack] the state lists the marks
// of the sequences it holds: at most its window and one row. The shuffles
// report a state alike, and [Take] how many items it has passed. The
// combinations are sources that keep state across their partitions: they
// give it with each partition (flow.Partition.State), each input's own
// checkpoint and a few counts.
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
// [flow.StageError] that names the stage, the partition and the row ID of the
// element. A panic in a user function is turned into such an error too,
// wrapping a [flow.PanicError] that keeps the stack. A bad argument (a
// negative [Take] count, a batch size below 1, a bad option) never panics:
// the stage keeps the error and the pipeline reports it (see
// [flow.Pipeline]).
package operators
