package gostreams

import "fmt"

// Options are typed by the adapters that take them: giving an adapter an
// option it does not use is a compile error.
//
//   - [InputOption] configures how an adapter reads go-streams elements in:
//     [From], [NewSink], and [NewFlow]'s input ([PartitionItems],
//     [ChunkSize], [Named], [OnStop]).
//   - [OutputOption] configures how an adapter hands elements out:
//     [NewSource], and [NewFlow]'s output ([Chunked]).
//   - [FlowOption] configures [NewFlow], which does both: every InputOption
//     and OutputOption is one.

// FlowOption configures [NewFlow]: it is an [InputOption] or an
// [OutputOption].
type FlowOption interface {
	apply(*config) error
}

// InputOption configures how an adapter reads go-streams elements in: [From],
// [NewSink] and [NewFlow].
type InputOption interface {
	FlowOption
	input()
}

// OutputOption configures how an adapter hands elements out: [NewSource]
// and [NewFlow].
type OutputOption interface {
	FlowOption
	output()
}

type inputOpt func(*config) error

func (o inputOpt) apply(c *config) error { return o(c) }
func (inputOpt) input()                  {}

type outputOpt func(*config) error

func (o outputOpt) apply(c *config) error { return o(c) }
func (outputOpt) output()                 {}

type config struct {
	name      string
	partition int
	chunk     int
	chunked   bool
	onStop    func()
}

// newConfig applies opts to the defaults. A nil option is an error.
func newConfig[O FlowOption](opts []O) (config, error) {
	c := config{name: "gostreams", partition: 4096, chunk: 1024}
	for _, o := range opts {
		if FlowOption(o) == nil {
			return c, fmt.Errorf("gostreams: nil option")
		}
		if err := o.apply(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// PartitionItems sets the number of elements per partition of the input
// (default 4096).
func PartitionItems(n int) InputOption {
	return inputOpt(func(c *config) error {
		if n < 1 {
			return fmt.Errorf("gostreams: PartitionItems(%d): must be at least 1", n)
		}
		c.partition = n
		return nil
	})
}

// ChunkSize sets the most values per chunk of the input (default 1024).
func ChunkSize(n int) InputOption {
	return inputOpt(func(c *config) error {
		if n < 1 {
			return fmt.Errorf("gostreams: ChunkSize(%d): must be at least 1", n)
		}
		c.chunk = n
		return nil
	})
}

// Named names the input in errors and in its row IDs (default
// "gostreams").
func Named(name string) InputOption {
	return inputOpt(func(c *config) error {
		if name == "" {
			return fmt.Errorf("gostreams: Named(\"\"): want a name")
		}
		c.name = name
		return nil
	})
}

// OnStop sets the function a run calls when it ends before its go-streams
// input has closed, before it drains that input (see the package
// documentation). It should make the go-streams source end, so that the
// goroutine draining it, and the go-streams goroutines, return; the run
// does not wait for them. The default is none: the input is drained only.
func OnStop(f func()) InputOption {
	return inputOpt(func(c *config) error {
		if f == nil {
			return fmt.Errorf("gostreams: OnStop(nil)")
		}
		c.onStop = f
		return nil
	})
}

// Chunked makes the output send one []T element per chunk instead of one
// element per value (the default). The slice belongs to the receiver.
func Chunked() OutputOption {
	return outputOpt(func(c *config) error {
		c.chunked = true
		return nil
	})
}
