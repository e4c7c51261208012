package operators_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// Map replaces each value; on several workers the output keeps the serial
// order.
func ExampleMap() {
	words := []string{"ant", "bee", "cat", "dog", "eel"}
	p := flow.From(sources.Slice(words, sources.PartitionItems(2))).
		Via(operators.Map(func(w string) (string, error) { return strings.ToUpper(w), nil })).Parallel(3)
	for it, err := range flow.Items[string](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(it.Part, it.ID, it.Value)
	}
	// Output:
	// 0 cd222931b549812e6f496e2ccd73e91a ANT
	// 0 cd222930ed49812e6f496e2ca573e91a BEE
	// 1 cd2229302549812e6f496e2c7d73e91a CAT
	// 1 cd22292f5d49812e6f496e2c5573e91a DOG
	// 2 cd222934d549812e6f496e2d6d73e91a EEL
}

// Filter keeps some values, with their IDs.
func ExampleFilter() {
	p := flow.From(sources.Generate(10, func(i int64) (int64, error) { return i * i, nil })).
		Via(operators.Filter(func(v int64) bool { return v%2 == 1 })).Parallel(2)
	for v, err := range flow.Values[int64](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output:
	// 1 9 25 49 81
}

// FlatMap gives each input any number of outputs, whose IDs are forked from
// the input's.
func ExampleFlatMap() {
	lines := []string{"a b", "", "c"}
	p := flow.From(sources.Slice(lines)).
		Via(operators.FlatMap(func(line string) ([]string, error) { return strings.Fields(line), nil }))
	for it, err := range flow.Items[string](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(it.ID, it.Value)
	}
	// "b" is the second output of row 0 of the source, which is named "slice".
	row0 := rowid.Ordinal(0).Combine(rowid.FromString("slice"))
	fmt.Println(row0.Fork().Next())
	// Output:
	// 4e1056ee328e41013524776f9571187c a
	// 4abc7ae9132b8e31f5ab5e7ab7f1ded5 b
	// 279056c7228e4101c1a477564571187c c
	// 4abc7ae9132b8e31f5ab5e7ab7f1ded5
}

// Take ends the stream after n values, even an unending one.
func ExampleTake() {
	p := flow.From(sources.Generate(-1, func(i int64) (int64, error) { return 3 * i, nil })).Parallel(4).
		Via(operators.Take[int64](5))
	for v, err := range flow.Values[int64](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output:
	// 0 3 6 9 12
}
