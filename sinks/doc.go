// Package sinks holds the ends of a rowflow pipeline, each a [flow.Sink] to
// end a pipeline with [flow.Pipeline.To].
//
// A sink consumes the stream in stream order, called from one goroutine
// (a sink may run goroutines of its own, as [ParquetShards] does with
// [Writers], and joins them before its run returns). Sinks that
// produce a result (a slice, a count, a digest) store it only when the run
// succeeds, replacing what the destination held: a failed or cancelled run
// leaves the destination as it was.
package sinks
