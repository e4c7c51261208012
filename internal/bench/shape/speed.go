package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/bench/mapfilter"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

const batchSize = 32

// tokenRows returns n token lists of 1 to 64 values.
func tokenRows(n int) [][]int32 {
	rows := make([][]int32, n)
	for i := range rows {
		t := make([]int32, 1+(i*7919)%64)
		for k := range t {
			t[k] = int32(i + k)
		}
		rows[i] = t
	}
	return rows
}

// pair is a rowflow variant and the hand-written loop it is compared with;
// each returns a checksum that both must agree on.
type pair struct {
	name, desc string
	flow, hand func(ctx context.Context, rows [][]int32) (uint64, error)
}

func pairs() []pair {
	return []pair{
		{name: "batch", desc: "Slice → Batch(32) → count, against a loop building the same batches (values, member IDs, folded batch ID)",
			flow: func(ctx context.Context, rows [][]int32) (uint64, error) {
				return sumBatches(ctx, flow.From(sources.Slice(rows)).Via(operators.Batch[[]int32](batchSize)))
			},
			hand: handBatch},
		{name: "batch+pad", desc: "as batch, then Pad(0), against the loop that also pads into one flat slice with lengths and mask",
			flow: func(ctx context.Context, rows [][]int32) (uint64, error) {
				p := flow.From(sources.Slice(rows)).Via(operators.Batch[[]int32](batchSize)).Via(operators.Pad(int32(0)))
				var sum uint64
				err := p.To(sinks.ForEach(func(it flow.Item[operators.Padded[int32]]) error {
					sum += uint64(len(it.Value.Data)) + it.ID.Lo
					return nil
				})).Run(ctx)
				return sum, err
			},
			hand: handPad},
	}
}

func sumBatches(ctx context.Context, p *flow.Pipeline) (uint64, error) {
	var sum uint64
	err := p.To(sinks.ForEach(func(it flow.Item[operators.Rows[[]int32]]) error {
		sum += uint64(it.Value.Len()) + it.ID.Lo
		return nil
	})).Run(ctx)
	return sum, err
}

// handBatches calls f with each batch the hand loop builds and its ID.
func handBatches(rows [][]int32, f func(vals [][]int32, ids []rowid.ID, id rowid.ID)) {
	src := rowid.NewCombiner(rowid.FromString("slice"))
	base := rowid.FromString("batch")
	for lo := 0; lo < len(rows); lo += batchSize {
		hi := min(lo+batchSize, len(rows))
		vals := append(make([][]int32, 0, batchSize), rows[lo:hi]...)
		ids := make([]rowid.ID, 0, batchSize)
		id := base
		for i := lo; i < hi; i++ {
			m := src.Combine(rowid.Ordinal(uint64(i)))
			ids = append(ids, m)
			id = id.Combine(m)
		}
		f(vals, ids, id)
	}
}

func handBatch(_ context.Context, rows [][]int32) (uint64, error) {
	var sum uint64
	handBatches(rows, func(vals [][]int32, _ []rowid.ID, id rowid.ID) { sum += uint64(len(vals)) + id.Lo })
	return sum, nil
}

func handPad(_ context.Context, rows [][]int32) (uint64, error) {
	var sum uint64
	handBatches(rows, func(vals [][]int32, _ []rowid.ID, id rowid.ID) {
		width := 0
		for _, r := range vals {
			width = max(width, len(r))
		}
		data, mask, lengths := make([]int32, len(vals)*width), make([]bool, len(vals)*width), make([]int32, len(vals))
		for i, r := range vals {
			copy(data[i*width:], r)
			for j := range r {
				mask[i*width+j] = true
			}
			lengths[i] = int32(len(r))
		}
		sum += uint64(len(data)) + id.Lo
	})
	return sum, nil
}

// alternate runs a and then b, once to warm up and then rounds times,
// and returns the median duration of each: machine noise hits both alike.
// A collection runs before each, untimed: the batching rows keep millions
// of rows live, so a collection during a run costs tens of milliseconds,
// and which side it fell in followed the allocation's rhythm, not the
// sides' own work (a run of Batch took either about 45 or about 77 ms).
func alternate(rounds int, a, b func() error) (time.Duration, time.Duration, error) {
	var as, bs []time.Duration
	for r := -1; r < rounds; r++ {
		var d [2]time.Duration
		for i, f := range []func() error{a, b} {
			runtime.GC()
			start := time.Now()
			if err := f(); err != nil {
				return 0, 0, err
			}
			d[i] = time.Since(start)
		}
		if r >= 0 {
			as, bs = append(as, d[0]), append(bs, d[1])
		}
	}
	return median(as), median(bs), nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// ratioRow prints one row of the speed table: rowflow's median f against
// the reference's h, and whether the ratio meets aim (none if aim is 0).
func ratioRow(w io.Writer, name, input string, f, h time.Duration, aim float64) {
	ratio := float64(h) / float64(f)
	aimText, ok := "info", ""
	if aim > 0 {
		aimText, ok = fmt.Sprintf("≥ %.1f×", aim), met(ratio >= aim)
	}
	fmt.Fprintf(w, "| %s | %s | %.1f ms | %.1f ms | %.2f× | %s | %s |\n", name, input, ms(f), ms(h), ratio, aimText, ok)
}

// speed prints the batching rows of the table.
func speed(ctx context.Context, w io.Writer, n, rounds int) error {
	rows := tokenRows(n)
	for _, p := range pairs() {
		var fsum, hsum uint64
		f, h, err := alternate(rounds, func() (err error) {
			fsum, err = p.flow(ctx, rows)
			return err
		}, func() (err error) {
			if hsum, err = p.hand(ctx, rows); err == nil && hsum != fsum {
				err = fmt.Errorf("%s: rowflow's checksum %d, the loop's %d", p.name, fsum, hsum)
			}
			return err
		})
		if err != nil {
			return err
		}
		ratioRow(w, p.name, fmt.Sprintf("%d rows", n), f, h, 0.8)
	}
	return nil
}

// mapFilterRows prints the chunk-level Map→Filter over n values against
// the hand-written chunk pipeline (mapfilter.Hand), alternating them.
func mapFilterRows(ctx context.Context, w io.Writer, n, rounds int) error {
	data := mapfilter.Data(n)
	for _, v := range []struct {
		name  string
		shape func(*flow.Pipeline) *flow.Pipeline
		aim   float64
		procs int // GOMAXPROCS for the pair; 0 leaves it
	}{
		{"map→filter: one FilterMapChunks, vs the hand chunk pipeline", mapfilter.FilterMap, 0.9, 0},
		{"map→filter: MapChunks → FilterChunks, vs the hand chunk pipeline", mapfilter.Chunks, 0, 0},
		// Both pipelines on one processor, as when the machine's other
		// work takes the second core: rowflow's plumbing keeps more than
		// one core busy where the hand pipeline keeps about one, so its
		// ratio falls when a core is taken.
		{"map→filter: one FilterMapChunks, both on one processor (GOMAXPROCS=1)", mapfilter.FilterMap, 0, 1},
	} {
		procs := runtime.GOMAXPROCS(v.procs) // 0 only reads it
		var got int64
		f, h, err := alternate(rounds, func() (err error) {
			got, err = mapfilter.Rowflow(ctx, data, mapfilter.Partition, v.shape)
			return err
		}, func() error {
			hand, err := mapfilter.Hand(ctx, data)
			if err == nil && (got != mapfilter.Want(n) || hand != got) {
				err = fmt.Errorf("%s: rowflow counted %d, the hand pipeline %d, want %d", v.name, got, hand, mapfilter.Want(n))
			}
			return err
		})
		runtime.GOMAXPROCS(procs)
		if err != nil {
			return err
		}
		ratioRow(w, v.name, fmt.Sprintf("%d values", n), f, h, v.aim)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}
