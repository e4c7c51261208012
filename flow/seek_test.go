package flow_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// mapOnly is a pipeline Resume at At positions from the source's row counts;
// calls counts the rows its Map saw.
func mapOnly(par int, calls *atomic.Int64) *flow.Pipeline {
	xs := make([]int64, 700)
	for i := range xs {
		xs[i] = int64(i)
	}
	return flow.From(sources.Slice(xs, sources.PartitionItems(64))).
		Via(operators.Map(func(x int64) (int64, error) { calls.Add(1); return x * 2, nil })).Parallel(par).
		Via(operators.Prefetch[int64](2)).
		Epochs(3)
}

func readPipe(t *testing.T, p *flow.Pipeline) []flow.Item[int64] {
	t.Helper()
	var out []flow.Item[int64]
	for it, err := range flow.Items[int64](context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// at returns the index in items of item k of epoch e, or len(items).
func at(items []flow.Item[int64], e, k int64) int {
	for i, it := range items {
		if it.Epoch() == e {
			if k == 0 {
				return i
			}
			k--
		} else if it.Epoch() > e {
			return i
		}
	}
	return len(items)
}

func TestAt(t *testing.T) {
	var calls atomic.Int64
	cases := map[string]func(par int) *flow.Pipeline{
		"by plan":      func(par int) *flow.Pipeline { return mapOnly(par, &calls) },
		"by epoch":     resumeCases["stateless"],
		"from the run": resumeCases["stateful"],
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			want := readPipe(t, build(1))
			for _, pos := range [][2]int64{{0, 0}, {0, 5}, {1, 0}, {1, 63}, {1, 64}, {1, 200}, {2, 1}, {1, 100000}, {2, 100000}} {
				from := at(want, pos[0], pos[1])
				if pos[1] == 100000 {
					from = len(want) // past the end of the epoch: nothing
				}
				for _, par := range []int{1, 3} {
					calls.Store(0)
					got := readPipe(t, build(par).Resume(flow.At(pos[0], pos[1])))
					if !slices.Equal(got, want[from:]) {
						t.Fatalf("At(%d, %d) at parallelism %d: %d items, want %d", pos[0], pos[1], par, len(got), len(want)-from)
					}
					if name == "by plan" && pos[1] < 700 {
						// Only the partition holding the position and those after it
						// are read.
						if read, max := calls.Load(), int64(len(got))+63; read > max {
							t.Errorf("At(%d, %d) read %d rows, at most %d needed", pos[0], pos[1], read, max)
						}
					}
				}
			}
		})
	}
}

// A tracker follows a run that starts at a position: its checkpoints
// resume the original run.
func TestAtThenResume(t *testing.T) {
	build := resumeCases["stateless"]
	want := readPipe(t, build(1))
	from := at(want, 1, 77)
	tr := new(flow.Tracker)
	n := 0
	var ck flow.Checkpoint
	for _, err := range flow.Items[int64](context.Background(), build(2).Resume(flow.At(1, 77)).Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 40 {
			if ck, err = tr.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if got := readPipe(t, build(3).Resume(ck)); !slices.Equal(got, want[from+40:]) {
		t.Fatalf("resumed %d items, want %d", len(got), len(want)-from-40)
	}
}

// A position of At is not covered by the fingerprint: a checkpoint of a
// run that started there resumes the pipeline itself. A later Resume
// replaces an earlier one.
func TestAtKeepsFingerprint(t *testing.T) {
	p := flow.From(sources.Slice([]int64{1, 2, 3, 4, 5, 6}))
	q := p.Resume(flow.At(0, 5))
	if p.Fingerprint() != q.Fingerprint() {
		t.Errorf("At changed the fingerprint: %s, %s", p.Fingerprint(), q.Fingerprint())
	}
	vals := func(items []flow.Item[int64]) []int64 {
		var v []int64
		for _, it := range items {
			v = append(v, it.Value)
		}
		return v
	}
	if got := vals(readPipe(t, q)); !slices.Equal(got, []int64{6}) {
		t.Errorf("Resume(At(0, 5)) gave %v", got)
	}
	if got := vals(readPipe(t, q.Resume(flow.At(0, 2)))); !slices.Equal(got, []int64{3, 4, 5, 6}) {
		t.Errorf("Resume(At(0, 5)).Resume(At(0, 2)) gave %v", got)
	}
}
