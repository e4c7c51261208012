package gostreams_test

import (
	"context"
	"fmt"

	"github.com/reugn/go-streams/extension"
	gsflow "github.com/reugn/go-streams/flow"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/interop/gostreams"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// A rowflow stage, on two workers, between two go-streams stages.
func ExampleNewFlow() {
	in, out := make(chan any), make(chan any)
	go func() {
		defer close(in)
		for _, w := range []string{"a", "bb", "", "ccc", "dd"} {
			in <- w
		}
	}()
	lengths := gostreams.NewFlow[string, int](context.Background(), func(p *flow.Pipeline) *flow.Pipeline {
		return p.Via(operators.Filter(func(s string) bool { return s != "" })).Parallel(2).
			Via(operators.Map(func(s string) (int, error) { return len(s), nil })).Parallel(2)
	}, sources.PartitionItems(2))
	go extension.NewChanSource(in).
		Via(gsflow.NewMap(func(s string) string { return s + "!" }, 1)).
		Via(lengths).
		Via(gsflow.NewMap(func(n int) string { return fmt.Sprint(n) }, 1)).
		To(extension.NewChanSink(out))
	for v := range out {
		fmt.Print(v, " ")
	}
	fmt.Println(lengths.Err())
	// Output: 2 3 1 4 3 <nil>
}

// A go-streams stream read as a rowflow source: partitions of three
// elements, row IDs from each element's place in the stream.
func ExampleFrom() {
	in := make(chan any)
	go func() {
		defer close(in)
		for i := range 7 {
			in <- i * i
		}
	}()
	p := flow.From(gostreams.From[int](extension.NewChanSource(in), sources.PartitionItems(3)))
	for it, err := range flow.Items[int](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(it.Part, ":", it.Value, " ")
	}
	fmt.Println()
	// Output: 0:0 0:1 0:4 1:9 1:16 1:25 2:36
}

// A rowflow pipeline as a go-streams source, one chunk per element.
func ExampleNewSource() {
	p := flow.From(sources.Slice([]int{1, 2, 3, 4, 5}, sources.ChunkSize(2)))
	src := gostreams.NewSource[int](context.Background(), p, gostreams.Chunked())
	out := make(chan any)
	go src.Via(gsflow.NewMap(func(c []int) int { return len(c) }, 1)).To(extension.NewChanSink(out))
	for n := range out {
		fmt.Print(n, " ")
	}
	fmt.Println(src.Err())
	// Output: 2 2 1 <nil>
}
