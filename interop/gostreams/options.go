package gostreams

import "fmt"

// Option configures an adapter.
type Option func(*config) error

type config struct {
	name      string
	partition int
	chunk     int
	chunked   bool
	onStop    func()
}

func newConfig(opts []Option) (config, error) {
	c := config{name: "gostreams", partition: 4096, chunk: 1024}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// PartitionItems sets the number of elements per partition of the input
// (default 4096).
func PartitionItems(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("gostreams: PartitionItems(%d): must be at least 1", n)
		}
		c.partition = n
		return nil
	}
}

// ChunkSize sets the most values per chunk of the input (default 1024).
func ChunkSize(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("gostreams: ChunkSize(%d): must be at least 1", n)
		}
		c.chunk = n
		return nil
	}
}

// Named names the input in errors and in its row IDs (default
// "gostreams").
func Named(name string) Option {
	return func(c *config) error {
		if name == "" {
			return fmt.Errorf("gostreams: Named(\"\"): want a name")
		}
		c.name = name
		return nil
	}
}

// Chunked makes the output send one []T element per chunk instead of one
// element per value. The slice belongs to the receiver.
func Chunked() Option {
	return func(c *config) error {
		c.chunked = true
		return nil
	}
}

// OnStop sets the function a run calls when it ends before its go-streams
// input has closed, before it drains that input (see the package
// documentation). It should make the go-streams source end, so that the
// goroutine draining it, and the go-streams goroutines, return; the run
// does not wait for them.
func OnStop(f func()) Option {
	return func(c *config) error {
		if f == nil {
			return fmt.Errorf("gostreams: OnStop(nil)")
		}
		c.onStop = f
		return nil
	}
}
