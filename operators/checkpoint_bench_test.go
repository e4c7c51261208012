package operators

import (
	"context"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// discard is an Emitter that drops what it gets and, if proc is set, asks
// it for a checkpoint after every push, as the runtime does.
type discard[T any] struct {
	proc   flow.Checkpointer
	pushes int
}

func (d *discard[T]) Push(_ context.Context, c flow.Chunk[T]) error {
	c.Release()
	d.pushes++
	if d.proc != nil {
		d.proc.Checkpoint()
	}
	return nil
}

// benchChunks are n rows in chunks of 1024, in partitions of 4096.
func benchChunks(n int) []flow.Chunk[int64] {
	var out []flow.Chunk[int64]
	base := rowid.FromString("bench")
	for lo := 0; lo < n; lo += 1024 {
		hi := min(lo+1024, n)
		vals := make([]int64, hi-lo)
		for i := range vals {
			vals[i] = int64(lo + i)
		}
		out = append(out, flow.Chunk[int64]{Part: int64(lo / 4096), IDs: flow.OrdinalIDs(base, uint64(lo), hi-lo), Values: vals, End: hi%4096 == 0 || hi == n})
	}
	return out
}

// feed runs a processor of op over chunks (copied: processors own them).
func feed[Out any](b *testing.B, p flow.Processor[int64, Out], chunks []flow.Chunk[int64], out flow.Emitter[Out]) {
	ctx := context.Background()
	for _, c := range chunks {
		c.Values = append(slicepool.Alloc[int64](len(c.Values)), c.Values...)
		if err := p.Process(ctx, c, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpoint measures one Checkpoint call of a processor in the
// middle of a stream: Shuffle(10000) and Batch(32), each after 100,000
// rows.
func BenchmarkCheckpoint(b *testing.B) {
	chunks := benchChunks(100_000)
	b.Run("shuffle", func(b *testing.B) {
		p := newShuffle[int64](10_000, nil).NewProcessor(flow.Env{})
		feed(b, p, chunks, &discard[int64]{})
		cp := p.(flow.Checkpointer)
		b.ReportAllocs()
		for b.Loop() {
			cp.Checkpoint()
		}
	})
	b.Run("batch", func(b *testing.B) {
		p := newBatchOp[int64](32, nil).NewProcessor(flow.Env{})
		feed(b, p, chunks[:len(chunks)-1], &discard[Rows[int64]]{})
		feed(b, p, []flow.Chunk[int64]{{Values: make([]int64, 7), IDs: flow.ListIDs(make([]rowid.ID, 7)), Part: chunks[len(chunks)-1].Part}}, &discard[Rows[int64]]{})
		cp := p.(flow.Checkpointer)
		b.ReportAllocs()
		for b.Loop() {
			cp.Checkpoint()
		}
	})
}

// BenchmarkCheckpointed runs 1,000,000 rows through Shuffle(10000) and
// Batch(32), without checkpoints and with one after every push, as the
// runtime takes them: the difference is what checkpoints cost a stage.
func BenchmarkCheckpointed(b *testing.B) {
	chunks := benchChunks(1_000_000)
	for _, ck := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "checkpointed"}[ck]
		b.Run("shuffle/"+name, func(b *testing.B) {
			for b.Loop() {
				p := newShuffle[int64](10_000, nil).NewProcessor(flow.Env{})
				d := &discard[int64]{}
				if ck {
					d.proc = p.(flow.Checkpointer)
				}
				feed(b, p, chunks, d)
			}
		})
		b.Run("batch/"+name, func(b *testing.B) {
			for b.Loop() {
				p := newBatchOp[int64](32, nil).NewProcessor(flow.Env{})
				d := &discard[Rows[int64]]{}
				if ck {
					d.proc = p.(flow.Checkpointer)
				}
				feed(b, p, chunks, d)
			}
		})
	}
}
