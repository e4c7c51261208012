package gostreams

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/io/datasource"
)

// FlowOption configures [NewFlow]: it is an [InputOption] or an
// [OutputOption]. Its method is exported so that the options of package
// sources can implement it; its parameter is internal, so only rowflow's
// packages can.
type FlowOption interface {
	ApplyFlow(*datasource.Stream) error
}

// InputOption configures how an adapter reads go-streams elements in:
// [From], [NewSink] and [NewFlow]. Every sources.SliceOption is one.
type InputOption interface {
	FlowOption
	ApplyStream(*datasource.Stream) error
}

// OutputOption configures how an adapter hands elements out: [NewSource]
// and [NewFlow].
type OutputOption interface {
	FlowOption
	output()
}

// config is an adapter's configuration: the input's, as a source, and
// what the adapters add.
type config struct {
	datasource.Stream
	chunked bool
	onStop  func()
}

// own returns the adapter's configuration that s is part of.
func own(s *datasource.Stream) *config { return s.Own.(*config) }

// newConfig applies opts with apply to the defaults. A nil option is an
// error.
func newConfig[O FlowOption](opts []O, apply func(O, *datasource.Stream) error) (*config, error) {
	c := &config{Stream: datasource.Stream{Common: datasource.NewCommon("gostreams"), PartitionItems: 4096}}
	c.Own = c
	for _, o := range opts {
		if FlowOption(o) == nil {
			return c, fmt.Errorf("gostreams: nil option")
		}
		if err := apply(o, &c.Stream); err != nil {
			return c, err
		}
	}
	return c, nil
}

// applyInput applies an option to the input of From or NewSink.
func applyInput(o InputOption, s *datasource.Stream) error { return o.ApplyStream(s) }

// applyFlow applies an option of NewFlow, or of NewSource, whose options
// are NewFlow's output options.
func applyFlow[O FlowOption](o O, s *datasource.Stream) error { return o.ApplyFlow(s) }

type onStopOpt func()

func (f onStopOpt) ApplyStream(s *datasource.Stream) error { return f.ApplyFlow(s) }
func (f onStopOpt) ApplyFlow(s *datasource.Stream) error {
	if f == nil {
		return fmt.Errorf("gostreams: OnStop(nil)")
	}
	own(s).onStop = f
	return nil
}

// OnStop sets the function a run calls when it ends before its go-streams
// input has closed, before it drains that input (see the package
// documentation). It should make the go-streams source end, so that the
// goroutine draining it, and the go-streams goroutines, return; the run
// does not wait for them. The default is none: the input is drained only.
func OnStop(f func()) InputOption { return onStopOpt(f) }

type chunkedOpt struct{}

func (chunkedOpt) ApplyFlow(s *datasource.Stream) error { own(s).chunked = true; return nil }
func (chunkedOpt) output()                              {}

// Chunked makes the output send one []T element per chunk instead of one
// element per value (the default). The slice belongs to the receiver.
func Chunked() OutputOption { return chunkedOpt{} }
