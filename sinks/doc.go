// Package sinks holds the ends of a rowflow pipeline that keep or visit
// its stream in memory, each a [flow.Sink] to end a pipeline with
// [flow.Pipeline.To]: [Collect], [CollectValues], [Count] and [ForEach]
// (a stream's digest is determinism.SumOf). The sinks that write a
// sharded dataset to files, and the commit of a job's output, are in
// package [github.com/rowflow/rowflow/sinks/shards].
//
// A sink consumes the stream in stream order, called from one goroutine
// (a sink may run goroutines of its own, as the shard sinks do, and joins
// them before its run returns). Sinks that produce a result (a slice, a
// count) store it only when the run succeeds, replacing what
// the destination held: a failed or cancelled run leaves the destination
// as it was.
package sinks
