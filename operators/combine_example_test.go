package operators_test

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

func letters(s string) *flow.Pipeline {
	var v []string
	for _, r := range s {
		v = append(v, string(r))
	}
	return flow.From(sources.Slice(v))
}

func printValues(src flow.Source[string]) {
	for v, err := range flow.Values[string](context.Background(), flow.From(src).WithSeed(2)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v)
	}
	fmt.Println()
}

// Concat, Interleave and Mix combine pipelines of one type; Mix draws
// each row's input with the given weights from the seeded stream.
func ExampleMix() {
	inputs := []*flow.Pipeline{letters("abcdefgh"), letters("ABCD"), letters("0123")}
	printValues(operators.Concat[string](inputs...))
	printValues(operators.Interleave[string](inputs, 3, 2))
	printValues(operators.Mix[string](inputs, []float64{2, 1, 1}))
	printValues(operators.Mix[string](inputs, []float64{2, 1, 1}, operators.StopExhausted()))
	// Output:
	// abcdefghABCD0123
	// abAB01cdCD23efgh
	// Aa0b123cdeBCfgDh
	// Aa0b123cde
}
