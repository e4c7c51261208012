package flow_test

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// A parallel group reuses the channels of partitions read to their End:
// many small partitions allocate far less than a channel of chunks each
// (two channels of 64 chunks, 16 KB for int64s, per partition before),
// and the count is still right, ordered and unordered.
func TestParallelReusesPartitionChannels(t *testing.T) {
	const parts, size = 2000, 16
	data := make([]int64, parts*size)
	for i := range data {
		data[i] = int64(i)
	}
	perChannel := 64 * unsafe.Sizeof(flow.Chunk[int64]{})
	for _, unordered := range []bool{false, true} {
		run := func() (int64, uint64) {
			var n int64
			p := flow.From(sources.Slice(data, sources.PartitionItems(size), sources.ChunkSize(size))).
				Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(2)
			if unordered {
				p = p.Unordered()
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := p.To(sinks.Count[int64](&n)).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return n, after.TotalAlloc - before.TotalAlloc
		}
		run() // warm the buffer pools
		n, bytes := run()
		if n != int64(len(data)) {
			t.Fatalf("unordered %v: counted %d, want %d", unordered, n, len(data))
		}
		t.Logf("unordered %v: %d bytes allocated per partition", unordered, bytes/parts)
		if per := bytes / parts; per > uint64(perChannel)/4 {
			t.Errorf("unordered %v: %d bytes allocated per partition, want at most a quarter of a partition channel's %d", unordered, per, perChannel)
		}
	}
}

// lateOp pushes, after each partition's End chunk, one more chunk: the
// row's value negated, under its own ID. It breaks the contract that
// the End chunk comes last.
type lateOp struct{}

func (lateOp) Info() flow.Info { return flow.Info{Name: "late"} }
func (lateOp) NewProcessor(flow.Env) flow.Processor[int64, int64] {
	return lateProc{}
}

type lateProc struct{}

func (lateProc) Process(ctx context.Context, c flow.Chunk[int64], out flow.Emitter[int64]) error {
	if !c.End || c.Len() == 0 {
		return out.Push(ctx, c)
	}
	extra := flow.Chunk[int64]{Part: c.Part, IDs: flow.ListIDs([]rowid.ID{c.IDs.At(0)}), Values: []int64{-c.Values[0]}}
	if err := out.Push(ctx, c); err != nil {
		return err
	}
	return out.Push(ctx, extra)
}

func (lateProc) Flush(context.Context, flow.Emitter[int64]) error { return nil }

// A stage on several workers that pushes after a partition's End chunk
// loses nothing and delivers nothing to another partition: the items,
// late ones included, are those of parallelism 1, in the same order.
func TestParallelStagePushingAfterEnd(t *testing.T) {
	data := make([]int64, 100)
	for i := range data {
		data[i] = int64(i)
	}
	read := func(par int) []flow.Item[int64] {
		return testutil.Items[int64](t, flow.From(sources.Slice(data, sources.PartitionItems(10), sources.ChunkSize(4))).
			Via(flow.NewStage[int64, int64](lateOp{})).Parallel(par))
	}
	want := read(1)
	if len(want) != 110 || want[10].Value != -8 || want[10].Part != 0 || want[109].Value != -98 || want[109].Part != 9 {
		t.Fatalf("parallelism 1: %d items, %v; want 110, each partition's 10 then its late one", len(want), want)
	}
	for _, par := range []int{2, 4} {
		if got := read(par); !slices.Equal(got, want) {
			t.Errorf("parallelism %d:\n%v\nwant\n%v", par, got, want)
		}
	}
}
