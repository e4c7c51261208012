// Command replay runs a small order-invoicing pipeline and prints the
// digest of its stream. Its test, main_test.go, is a replay test to copy
// into a project: it checks the pipeline's stream against a golden file
// in testdata, at several parallelisms, and fails, naming the first
// partition and row that differ, when a change to the pipeline changes
// its output.
//
//	go run ./examples/replay -workers 4
//	go test ./examples/replay                # check the golden file
//	go test ./examples/replay -update        # rewrite it after a wanted change
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// Order is a row of the input.
type Order struct {
	ID       int64
	Customer string
	Cents    int64
}

// Invoice is a row of the output.
type Invoice struct {
	Order Order
	Tax   int64
	Lines []string
}

// orders is the number of orders of the sample input.
const orders = 400

func main() {
	workers := flag.Int("workers", 4, "parallelism of the parallel stages")
	flag.Parse()
	sum, err := determinism.SumOf[Invoice](context.Background(), pipeline(*workers, tax))
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
	fmt.Printf("%d invoices, digest %v\n", sum.Count, sum)
}

// pipeline reads the sample orders, drops the empty ones, invoices the
// rest with taxOf, and shuffles the invoices with a fixed seed.
func pipeline(parallelism int, taxOf func(Order) int64) *flow.Pipeline {
	return flow.From(sources.Generate(orders, order, sources.PartitionItems(50), sources.Named("orders"))).
		Via(operators.Filter(func(o Order) bool { return o.Cents > 0 })).Parallel(parallelism).
		Via(operators.Map(func(o Order) (Invoice, error) { return invoice(o, taxOf), nil })).Parallel(parallelism).
		Via(operators.Shuffle[Invoice](64, operators.PartitionItems(100))).
		WithSeed(7)
}

// order makes the i-th sample order from i alone.
func order(i int64) (Order, error) {
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	x ^= x >> 29
	return Order{ID: i, Customer: fmt.Sprintf("c%02d", x%17), Cents: int64(x%5000) - 500}, nil
}

// tax is 8% of the amount, rounded half up to the cent.
func tax(o Order) int64 { return (o.Cents*8 + 50) / 100 }

func invoice(o Order, taxOf func(Order) int64) Invoice {
	t := taxOf(o)
	return Invoice{Order: o, Tax: t, Lines: []string{
		fmt.Sprintf("order %d for %s", o.ID, o.Customer),
		fmt.Sprintf("amount %d, tax %d, total %d", o.Cents, t, o.Cents+t),
	}}
}
