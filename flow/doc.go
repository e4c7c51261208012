// Package flow builds and runs deterministic, parallel, streaming
// pipelines: a source, a chain of stages and a sink, whose output is the
// same, value for value, row ID for row ID and in the same order, at any
// parallelism.
//
// # What users write
//
// A pipeline is one fluent chain. [From] starts it with a source (from the
// sources package), [Pipeline.Via] appends a stage (from the operators
// package), [Pipeline.Parallel] runs the stage just added on n workers,
// [Pipeline.Unordered] lets that stage's output come in whatever order its
// partitions finish, and [Pipeline.To] ends it with a sink (from the sinks
// package), after which [Pipeline.Run] runs it:
//
//	p := flow.From(sources.Slice(lines, sources.PartitionItems(1024))).
//		Via(operators.Map(parse)).Parallel(4).
//		Via(operators.Filter(valid)).Parallel(4)
//	err := p.To(sinks.Collect(&items)).Run(ctx)
//
// A pipeline without a sink is read in a loop instead: [Items] yields each
// [Item] (its partition's partition number, its row ID and its value), [Values]
// only the values, and [Chunks] whole chunks. The loop runs the pipeline;
// leaving it early cancels the run.
//
//	for it, err := range flow.Items[Record](ctx, p) { … }
//
// A [Pipeline] is a value: every builder method returns a new one, so a
// pipeline can be extended in two ways, and run any number of times, each
// run giving the same output. [Pipeline.WithSeed], [Pipeline.Epochs] and
// [Pipeline.WithRank] set what every stage sees in its [Env]; an item's
// epoch is [Item.Epoch].
//
// Several pipelines of one type make one source with operators.Concat,
// Interleave and Mix; a source that reads any row directly
// ([RandomAccess]) can be read in a random order without holding rows.
//
// # What stage authors implement
//
// Sources, operators and sinks are written against small interfaces. A
// [Source] splits its input into partitions numbered in serial order and
// reads each into an [Emitter]. An [Operator] makes a [Processor] per run
// and worker, whose Process receives one [Chunk] at a time and pushes its
// output to an Emitter; [NewStage] turns it into a [Stage] for Via. A
// [SinkStage] makes a [Consumer] per run; [NewSink] turns it into a [Sink]
// for To.
//
// A Chunk is consecutive values of one partition laid out as
// struct-of-arrays: one partition number, the values, and their row IDs as an
// [IDs], which is often a compact run of ordinals computed only when a
// stage asks for an ID. Whoever receives a chunk owns its slices: a 1:1 map
// writes a new values slice and hands the IDs on untouched, a filter
// compacts both in place. [Chunk.Release] hands its buffers back to pools
// that rowflow's sources and stages allocate from, so a steady pipeline
// allocates almost nothing per value. Processors of stages that may run in parallel see whole
// partitions and keep no state across them; a stage that must (it counts,
// batches or shuffles across partitions) says why in [Info.Serial] and
// then runs on one worker, after the ordered merge.
//
// A source, operator or sink with a bad argument or option does not panic:
// it keeps the error and reports it from a method Err() error, and the
// pipeline keeps the first such error (see [Pipeline]).
//
// # The order guarantee
//
// Every item carries the partition number of the partition it came from, and
// the serial order of a stream is the stable sort of its items by partition
// number. A Parallel stage hands whole partitions to its workers in order,
// and its ordered merge emits them again in partition order, streaming the
// lowest open partition as its chunks arrive. So the items, their IDs and
// their order do not depend on the parallelism, the machine or the timing,
// and a parallel run reproduces the serial one exactly. Unordered gives up
// the order of partitions, not their contents or IDs: the items of one
// partition stay together and in order. Sources keep the same promise
// (the same input, seed, epoch and rank give the same partitions), and
// serial stages see the serial order.
//
// Row IDs follow rules that keep them distinct across a pipeline: a source
// enumerates ordinals combined with an ID of its input, filters and 1:1
// maps keep IDs, 1:N stages fork them; see package rowid.
//
// # Errors
//
// Building never panics and never fails on the spot: the first mistake
// (types that do not fit, Parallel on a serial stage, a bad argument) is
// kept, and [Pipeline.Err], Run and the iterators return it. While running,
// the first error in the serial order, or a panic in a stage or a user
// function, cancels the whole run and is returned as a [*StageError]
// naming the stage and, where known, the partition and row ID: a run on
// several workers fails with the serial run's error, after the serial
// run's items, even when a later partition fails first (Unordered
// groups fail with the first error in time). A panic becomes a
// [*PanicError] inside it, whose message is one line and which keeps the
// stack. A user function
// that ends its goroutine with runtime.Goexit (testing's t.Fatal does)
// fails the run too, with an error that says so. When Run returns, or
// a loop over Items ends, no goroutine of the run is still running, and
// the sink has been closed with the run's outcome, so it can commit or
// discard its output. A stage that needs no more input returns [ErrStop],
// which ends the stream successfully.
//
// # Costs
//
// Stages pass chunks, so a channel operation is paid per chunk (typically
// up to 1024 values), not per value. Consecutive stages with the same
// parallelism are fused: a chunk passes through them as function calls in
// one goroutine, and channels appear only where the parallelism changes.
// Per value, a stage costs what its function costs plus a few nanoseconds;
// a Map and a Filter on two workers with the ordered merge run at about
// the speed of a hand-written pipeline that calls the same functions.
//
// Memory is bounded and does not grow with the length of a run: each
// channel holds a fixed number of chunks, a Parallel stage on n workers
// has a window of a few times n partitions in flight, each buffering up to
// 64 chunks, and the
// partitions waiting behind the one being merged share a budget of one
// partition buffer per worker. A slow consumer blocks its producers. The
// price of order is that a slow partition holds back the ones after it
// (within that bound); Unordered removes that wait.
package flow
