// Package gostreams connects rowflow pipelines with go-streams
// (github.com/reugn/go-streams v0.13.0) in both directions.
//
//   - [From] makes any go-streams [streams.Outlet] — a Source, a Flow, and
//     so any of its connectors — a rowflow source.
//   - [NewSource] serves a rowflow pipeline as a go-streams Source,
//     [NewFlow] places rowflow stages between go-streams stages, and
//     [NewSink] ends a go-streams stream in a rowflow pipeline with a sink.
//
// # Partitions are cut by count
//
// go-streams elements arrive one at a time on a channel. The adapters
// group them into partitions of sources.PartitionItems elements (default
// 4096), in arrival order, never by a timer, so which partition an element
// falls in (its partition number) and its row ID depend only on its place
// in the stream: element i gets the ID
// rowid.Ordinal(i).Combine(rowid.FromString(name)) (sources.Named,
// default "gostreams"). An element may also be a []T (as go-streams' own
// flow.NewBatch emits): its values are rows one after another, and how
// the stream happened to be batched does not change the partitions. A
// partition is complete when it is full or the stream ends, so a slow
// stream delivers its rows a partition at a time.
//
// Going out, every value is one go-streams element, or, with [Chunked],
// every chunk is one element of type []T: one channel operation per chunk
// instead of per value, for a go-streams stage that takes slices.
//
// # Options
//
// Options are typed by the adapters that take them, so that giving an
// adapter an option it does not use is a compile error:
//
//   - an [InputOption] configures how an adapter reads go-streams
//     elements in, as a rowflow source ([From], [NewSink], and [NewFlow]'s
//     input). The go-streams input is a source that reads values in
//     order, as sources.Slice is, and takes the same options,
//     sources.SliceOption (sources.PartitionItems, sources.ChunkSize,
//     sources.Named), and [OnStop];
//   - an [OutputOption] configures how an adapter hands elements out
//     ([NewSource], and [NewFlow]'s output): [Chunked];
//   - [NewFlow], which does both, takes a [FlowOption], which every
//     InputOption and OutputOption is.
//
// The input's defaults are partitions of 4096 elements, chunks of at most
// 1024 values, the name "gostreams" and no OnStop function. A nil option
// is an error of the adapter's run, not a panic.
//
// # Errors and cancellation
//
// go-streams has no error channel and no context: a stream simply ends
// when its channel is closed. The adapters therefore end their output
// stream early when the rowflow run fails or its context is cancelled,
// and keep the reason, which Err returns once the output channel is
// closed (and [Sink.AwaitCompletion] has returned). A consumer that sees
// the stream end must ask Err whether it ended normally. An element of
// the wrong type is such an error, naming the element's position.
//
// # Goroutines
//
// go-streams stages start their goroutines when they are made and stop
// when their input channel is closed. So that none is left blocked
// sending to a run that has ended early, a run of an adapter that ends
// before its go-streams input has closed drains that input: it calls the
// [OnStop] function, if one was given, and then starts a goroutine that
// reads and drops elements until the input is closed. The run returns
// without waiting for it, whatever the go-streams source does: a
// cancelled run returns at once even over a source that is idle and never
// closes. That goroutine, and the go-streams goroutines, return when the
// source closes its channel; a go-streams source that never ends by
// itself needs an OnStop function that ends it, or they stay (blocked
// in the source, not in rowflow) for as long as the process runs. A run that fails before it starts, such as a loop over an
// iterator of another type, never reaches the input and leaves it unread
// (see [From]). The goroutine an adapter starts returns once its run has
// ended and its output is closed; cancel the context to end a run whose
// go-streams consumer has stopped reading.
package gostreams
