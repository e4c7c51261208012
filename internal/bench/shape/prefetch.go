package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// The prefetch measurement: batches of 32 rows whose preparation takes
// prepWait per batch (as reading and decoding would), consumed by a step
// that waits stepWait per batch (as a training step waits for the
// accelerator). Both are waits rather than CPU work, so that the
// measurement shows the overlap even on a machine whose cores are busy
// with other work.
const (
	prefetchBatches = 400
	stepWait        = 400 * time.Microsecond
	prepWait        = 300 * time.Microsecond
)

// prepare is the producer: rows made with a wait per batch, batched.
func prepare() *flow.Pipeline {
	return flow.From(sources.Generate(prefetchBatches*batchSize, func(i int64) (int64, error) {
		if i%batchSize == 0 {
			time.Sleep(prepWait)
		}
		return i, nil
	},
		sources.ChunkSize(batchSize), sources.PartitionItems(batchSize))).
		Via(operators.Batch[int64](batchSize, operators.PartitionItems(1)))
}

// consume runs p into a sink that waits per batch if wait.
func consume(ctx context.Context, p *flow.Pipeline, wait bool) (time.Duration, error) {
	start := time.Now()
	n := 0
	err := p.To(sinks.ForEach(func(it flow.Item[operators.Rows[int64]]) error {
		n++
		if wait {
			time.Sleep(stepWait)
		}
		return nil
	})).Run(ctx)
	if err == nil && n != prefetchBatches {
		err = fmt.Errorf("prefetch: %d batches, want %d", n, prefetchBatches)
	}
	return time.Since(start), err
}

// consumerAlone is the consumer's time with batches ready at once.
func consumerAlone() time.Duration {
	start := time.Now()
	for range prefetchBatches {
		time.Sleep(stepWait)
	}
	return time.Since(start)
}

// prefetchRows prints the prefetch rows of the table.
func prefetchRows(ctx context.Context, w io.Writer, rounds int) error {
	var prod, cons, serial, pre []time.Duration
	for r := -1; r < rounds; r++ {
		d, err := consume(ctx, prepare(), false)
		if err != nil {
			return err
		}
		prod = append(prod, d)
		cons = append(cons, consumerAlone())
		if d, err = consume(ctx, prepare(), true); err != nil {
			return err
		}
		serial = append(serial, d)
		if d, err = consume(ctx, prepare().Via(operators.Prefetch[operators.Rows[int64]](8)), true); err != nil {
			return err
		}
		pre = append(pre, d)
	}
	p, c, s, f := median(prod[1:]), median(cons[1:]), median(serial[1:]), median(pre[1:])
	slower := max(p, c)
	fmt.Fprintf(w, "| prefetch: without | %d batches | %.1f ms | %.1f ms (slower side) | %.2f× | info | |\n",
		prefetchBatches, ms(s), ms(slower), float64(s)/float64(slower))
	fmt.Fprintf(w, "| prefetch: Prefetch(8) | %d batches | %.1f ms | %.1f ms (slower side) | %.2f× | ≤ 1.15× | %s |\n",
		prefetchBatches, ms(f), ms(slower), float64(f)/float64(slower), met(float64(f)/float64(slower) <= 1.15))
	fmt.Fprintf(w, "\nprefetch sides alone: preparing %.1f ms, consuming %.1f ms (%v per batch)\n", ms(p), ms(c), stepWait)
	return nil
}
