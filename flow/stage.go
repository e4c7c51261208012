package flow

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
)

// Emitter receives the chunks a stage produces. Push hands c downstream;
// the receiver owns c afterwards. Push blocks while downstream is full and
// returns ctx's error when the pipeline is cancelled.
type Emitter[T any] interface {
	Push(ctx context.Context, c Chunk[T]) error
}

// Env is what a run tells its stages. It never depends on the
// parallelism, the machine or the time.
type Env struct {
	// Seed is the seed set with [Pipeline.WithSeed].
	Seed uint64
	// Fingerprint identifies the pipeline's definition: 32 hex digits
	// hashed from the names, types and settings ([Info.Settings]) of its
	// source, stages and sink, the stages that are Unordered, its epochs,
	// rank and seed. It does not depend on the parallelism, and it cannot
	// see inside user functions or the values an in-memory source holds:
	// two pipelines that differ only in a Map's function share a
	// fingerprint.
	Fingerprint string
	// Job identifies the job that the run is one rank of: 32 hex digits
	// hashed as Fingerprint is from the source, stages, epochs and seed,
	// and from the world but not the rank nor the sink (whose settings
	// may name the rank), so that every rank of one job has the same Job.
	// Sinks record it in each rank's manifest.
	Job string
	// Epoch is the epoch being planned: a source's Partitions sees each
	// epoch of the run in turn (see [Pipeline.Epochs]). Stages are made
	// once per run and see its first epoch (0, or later for an input
	// that a combination restarts);
	// they tell the epoch of an item from its partition number with
	// [Item.Epoch].
	Epoch int64
	// Rank and World are this process's rank and the number of processes
	// that run the pipeline together (see [Pipeline.WithRank]): 0 and 1
	// unless set.
	Rank, World int
	// Position is the stage's position in the pipeline: 0 for the source,
	// k for the k-th stage added with Via. Stages that draw random choices
	// mix it into their streams, so that two such stages of one pipeline
	// draw differently.
	Position int
	// Resume, when not nil, is the JSON encoding of a state that the
	// stage's processor returned from [Checkpointer.Checkpoint] in an
	// earlier run: the processor starts from it (see [Checkpointer]).
	// For a source that keeps state across its partitions, it is the
	// [Partition].State of the partition the resumed run starts at, given
	// to Partitions for that partition's epoch: the source yields that
	// partition first. It is nil everywhere else.
	Resume json.RawMessage
	// Followed, for a source, says that a [Tracker] follows the run
	// ([Pipeline.Checkpoints]), so that a source that keeps state across
	// its partitions must give it in [Partition].State; in other runs it
	// need not spend the time.
	Followed bool

	obs        *runStats // the run's counters when a Monitor observes it
	rankRows   *rankRows // see RankRows; nil where the stage cannot use it
	definition []defPart // what the fingerprint covers, part by part
	ck         *runCk    // the run's checkpoint plumbing, if followed or resumed
}

// Info describes a stage to the runtime and in errors.
type Info struct {
	// Name names the stage in errors, e.g. "map" or "parquet(data/)".
	Name string
	// Serial, when not empty, says why the stage keeps state across
	// partitions and so cannot run on several workers; asking such a stage
	// for Parallel is an error that quotes this reason. A source that says
	// so keeps state across its partitions (operators.Mix's draws) and
	// reports it for checkpoints with each partition: see
	// [Partition].State.
	Serial string
	// Buffer, when above 0, gives a stage on one worker a goroutine of its
	// own that reads its input from a channel of Buffer chunks: the stages
	// upstream run ahead of it, and of the stages fused after it, by up to
	// Buffer chunks. It is how operators.Prefetch decouples a slow
	// consumer from the work that feeds it. Stages on several workers
	// ignore it.
	Buffer int
	// OneToOne says that the stage gives exactly one output row for each
	// input row, in the same partition and order, and holds nothing
	// across partitions (a Map, a Prefetch). A run resumed at a position of [At] finds an
	// item from the source's row counts only through such stages.
	OneToOne bool
	// Ranked, for a source, says that it divides its rows among the ranks
	// of a run itself, from [Env].Rank and [Env].World: each rank yields
	// its own rows, the ranks' rows are disjoint, and their union is what
	// the source yields as rank 0 of 1. A run of more than one rank (see
	// [Pipeline.WithRank]) refuses a source that does not say so. Stages
	// ignore it.
	Ranked bool
	// Settings describes what decides the stage's output besides its
	// type, its name and its user functions: sizes, bounds, policies,
	// options, a source's inputs. The pipeline's fingerprint covers it,
	// so a checkpoint or a disk cache made by a pipeline with other
	// settings is refused. Two stages whose output would differ should
	// give different texts; a stage whose output only its functions
	// decide leaves it empty.
	Settings string
}

// Source produces a stream. It is lazy: nothing is opened or read before
// Partitions is called, and every call plans the same partitions again.
type Source[T any] interface {
	Info() Info
	// Partitions returns the source's partitions in serial order. Partition
	// numbers (Part) must increase. A source may yield an error instead of a
	// partition; the run then fails with it.
	Partitions(ctx context.Context, env Env) iter.Seq2[Partition[T], error]
}

// Partition is one independently readable part of a source's input.
type Partition[T any] struct {
	Part int64
	// Read pushes the partition's values in order, in chunks whose Part is
	// the partition's, the last with End set. Partitions of one source may
	// be read concurrently, each by one goroutine.
	Read func(ctx context.Context, out Emitter[T]) error
	// State is, for a source that keeps state across its partitions (its
	// [Info].Serial is set), the state it starts the partition from: a
	// small value that encoding/json can encode, from which the source
	// can yield this partition and every later one of the epoch as the
	// run did. A source gives it in a run a [Tracker] follows
	// ([Env].Followed); the tracker keeps it, a checkpoint taken in the
	// partition or after it holds it, and a run resumed from the
	// checkpoint gives it back to the source's Partitions in
	// [Env].Resume. A partition without a State is resumed the slow way:
	// from the latest partition before it that gave one, or from the
	// run's start, dropping what was delivered. Other sources leave it
	// nil.
	State any
}

// Operator transforms a stream of In into a stream of Out. Make a [Stage]
// of it with [NewStage].
type Operator[In, Out any] interface {
	Info() Info
	// NewProcessor returns a processor for one run and one worker. A
	// processor is used by one goroutine at a time.
	NewProcessor(env Env) Processor[In, Out]
}

// Processor is one worker's instance of an operator.
//
// Process is called for every chunk in stream order. It pushes its output
// to out, forwarding one End chunk for each End chunk it receives. A
// processor of a stage that is not serial sees whole partitions only, in
// batch order but possibly with gaps, and must not keep state from one
// partition to the next.
//
// Flush is called once at the end of the stream, for serial stages only,
// so that they can push what they still hold.
//
// Returning [ErrStop] from Process ends the stream at this stage: the
// stages downstream are flushed and finish normally, the stages upstream
// are cancelled, and the run succeeds.
type Processor[In, Out any] interface {
	Process(ctx context.Context, c Chunk[In], out Emitter[Out]) error
	Flush(ctx context.Context, out Emitter[Out]) error
}

// ErrStop is returned by a serial [Processor] or [Consumer] that needs no
// more input. It is not an error of the run.
var ErrStop = errors.New("flow: stop")

// StopAfter returns the error with which a [Consumer]'s Consume ends the
// run early and successfully, as [ErrStop] does, once it has consumed the
// first n values of the chunk it was given: a [Tracker] counts those n
// values as delivered, so that a checkpoint taken after the run resumes
// after them. A Consume that returns ErrStop itself consumed none of the
// chunk. errors.Is(StopAfter(n), ErrStop) is true.
func StopAfter(n int) error { return stopAfter{n: n} }

type stopAfter struct{ n int }

func (stopAfter) Error() string        { return ErrStop.Error() }
func (stopAfter) Is(target error) bool { return target == ErrStop }

// Checkpoint returns the position after the last chunk that the run's
// sink consumed: for a sink's consumer, in a run that is followed (see
// [Pipeline.Checkpoints] and [SinkStage]). In any other place or run it
// is an error.
func (e Env) Checkpoint() (Checkpoint, error) {
	t := e.ck.consumerTracker()
	if t == nil {
		return Checkpoint{}, errors.New("flow: Env.Checkpoint: the run is not followed: a sink takes checkpoints only in a run followed by a Tracker, or as a sink with a Continuation method")
	}
	return t.Checkpoint()
}

// SinkStage consumes a stream at the end of a pipeline. Make a [Sink] of it
// with [NewSink].
//
// A sink stage that records how far a run got, so that a killed run can
// go on from there (a shard writer with Continue), also has the method
//
//	Continuation(env Env) (ck Checkpoint, ok bool, err error)
//
// [Pipeline.Run] calls it before the run starts. With ok, the run resumes
// from ck as [Pipeline.Resume] would (a pipeline that was resumed already
// is an error: the start is said once); without, it starts afresh. Either
// way the run is followed, so that its consumer can take checkpoints with
// [Env.Checkpoint]. An error ends the run before it starts.
type SinkStage[T any] interface {
	Info() Info
	// NewConsumer returns the consumer for one run.
	NewConsumer(env Env) Consumer[T]
}

// Consumer is one run's instance of a sink. Consume is called for every
// chunk in stream order, from one goroutine. Close is called exactly once
// at the end: with nil when the stream ended normally, so the consumer
// commits its result, or with the run's error, so it discards what it
// began. Returning [ErrStop] or [StopAfter] from Consume ends the run
// early and successfully; Close(nil) follows. Close is called after every goroutine
// of the run has returned, when the context given to Consume is already
// cancelled, whether the run succeeded or not: a consumer that runs
// goroutines of its own must not tie their completion to that context.
type Consumer[T any] interface {
	Consume(ctx context.Context, c Chunk[T]) error
	Close(err error) error
}
