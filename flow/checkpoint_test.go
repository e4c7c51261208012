package flow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// pairSum is a stateful serial stage for the tests: it sums consecutive
// pairs of rows, across partition boundaries, and emits each sum in the
// partition of the row that completes it. Its checkpoint is where its
// input must restart: at the row it holds, if it holds one.
type pairSum struct{}

func (pairSum) Info() flow.Info {
	return flow.Info{Name: "pair-sum", Serial: "it holds a row across partitions"}
}

func (pairSum) NewProcessor(env flow.Env) flow.Processor[int64, int64] {
	p := &pairSumProc{in: flow.Mark{Part: -1}}
	if env.Resume != nil {
		var st pairSumState
		if err := json.Unmarshal(env.Resume, &st); err != nil || st.Kind != "pair-sum" {
			panic(fmt.Sprintf("pair-sum resumed from %s", env.Resume))
		}
		p.resumed = true
	}
	return p
}

type pairSumState struct{ Kind string }

type pairSumProc struct {
	held     bool
	heldVal  int64
	heldID   rowid.ID
	heldMark flow.Mark
	in       flow.Mark // input position after the rows processed
	resumed  bool
}

func (p *pairSumProc) Process(ctx context.Context, c flow.Chunk[int64], out flow.Emitter[int64]) error {
	if c.Part != p.in.Part {
		p.in = flow.Mark{Part: c.Part}
	}
	var vals []int64
	var ids []rowid.ID
	for k, v := range c.Values {
		if !p.held {
			p.held, p.heldVal, p.heldID, p.heldMark = true, v, c.IDs.At(k), p.in
		} else {
			vals = append(vals, p.heldVal+v)
			ids = append(ids, rowid.NewCombiner(p.heldID).Combine(c.IDs.At(k)))
			p.held = false
		}
		p.in.Row++
	}
	part, end := c.Part, c.End
	c.Release()
	return out.Push(ctx, flow.Chunk[int64]{Part: part, IDs: flow.ListIDs(ids), Values: vals, End: end})
}

func (p *pairSumProc) Flush(context.Context, flow.Emitter[int64]) error { return nil }

func (p *pairSumProc) Checkpoint() (any, flow.Mark) {
	if p.held {
		return pairSumState{"pair-sum"}, p.heldMark
	}
	return pairSumState{"pair-sum"}, p.in
}

// resumeCases are pipelines whose runs are checkpointed and resumed; par
// sets the parallelism of their stateless stages.
var resumeCases = map[string]func(par int) *flow.Pipeline{
	"stateless": func(par int) *flow.Pipeline {
		xs := make([]int64, 600)
		for i := range xs {
			xs[i] = int64(i)
		}
		return flow.From(sources.Slice(xs, sources.PartitionItems(37))).
			Via(operators.FlatMap(func(x int64) ([]int64, error) { return slices.Repeat([]int64{x}, int(x%3)), nil })).Parallel(par).
			Via(operators.Filter(func(x int64) bool { return x%5 != 0 })).Parallel(par).
			Via(operators.Map(func(x int64) (int64, error) { return 3 * x, nil })).Parallel(par).
			Epochs(3).WithSeed(7)
	},
	"stateful": func(par int) *flow.Pipeline {
		xs := make([]int64, 500)
		for i := range xs {
			xs[i] = int64(i)
		}
		return flow.From(sources.Slice(xs, sources.PartitionItems(23))).
			Via(operators.Filter(func(x int64) bool { return x%7 != 3 })).Parallel(par).
			Via(flow.NewStage[int64, int64](pairSum{})).
			Via(operators.FlatMap(func(x int64) ([]int64, error) { return slices.Repeat([]int64{x}, int(x%4)), nil })).Parallel(par).
			Via(flow.NewStage[int64, int64](pairSum{})).
			Via(operators.Map(func(x int64) (int64, error) { return x + 1, nil })).Parallel(par).
			Epochs(2).WithSeed(9)
	},
}

// otherPartitions is resumeCases["stateful"] with partitions of 24 rows.
func otherPartitions() *flow.Pipeline {
	xs := make([]int64, 500)
	for i := range xs {
		xs[i] = int64(i)
	}
	return flow.From(sources.Slice(xs, sources.PartitionItems(24))).
		Via(operators.Filter(func(x int64) bool { return x%7 != 3 })).
		Via(flow.NewStage[int64, int64](pairSum{})).
		Via(operators.FlatMap(func(x int64) ([]int64, error) { return slices.Repeat([]int64{x}, int(x%4)), nil })).
		Via(flow.NewStage[int64, int64](pairSum{})).
		Via(operators.Map(func(x int64) (int64, error) { return x + 1, nil })).
		Epochs(2).WithSeed(9)
}

// trackedRun reads p with a tracker and returns its items and, for each
// k, the checkpoint taken after item k, through its JSON encoding.
func trackedRun(t *testing.T, p *flow.Pipeline) ([]flow.Item[int64], []flow.Checkpoint) {
	t.Helper()
	return testutil.TrackedRun[int64](t, p)
}

func TestResumeGivesTheRestOfTheRun(t *testing.T) {
	for name, build := range resumeCases {
		t.Run(name, func(t *testing.T) {
			want, cks := trackedRun(t, build(1))
			if len(want) < 300 {
				t.Fatalf("only %d items", len(want))
			}
			if name == "stateful" {
				// Late in the run the source restarts late: a resume does
				// not read the run again from its start.
				last := cks[len(cks)-2]
				if len(flow.FieldsOf(last).Stages) != 2 || flow.FieldsOf(last).Stages[0].In.Part < epoch.Part(1, 15) {
					t.Fatalf("the checkpoint before the last item restarts the source at %+v", flow.FieldsOf(last).Stages)
				}
			}
			if got, _ := trackedRun(t, build(3)); !slices.Equal(got, want) {
				t.Fatal("a followed run at parallelism 3 differs from one at 1")
			}
			rng := rand.New(rand.NewPCG(1, 2))
			positions := []int{0, len(want) - 1}
			for range 25 {
				positions = append(positions, rng.IntN(len(want)))
			}
			for _, k := range positions {
				for _, par := range []int{1, 4} {
					var got []flow.Item[int64]
					for it, err := range flow.Items[int64](context.Background(), build(par).Resume(cks[k])) {
						if err != nil {
							t.Fatalf("resume after item %d at parallelism %d: %v", k, par, err)
						}
						got = append(got, it)
					}
					if !slices.Equal(got, want[k+1:]) {
						t.Fatalf("resumed after item %d (checkpoint %+v) at parallelism %d: %d items, want %d; first %v, want %v",
							k, cks[k], par, len(got), len(want)-k-1, head(got), head(want[k+1:]))
					}
				}
			}
		})
	}
}

func head(xs []flow.Item[int64]) any {
	if len(xs) == 0 {
		return "none"
	}
	return xs[0]
}

// A resumed run that is followed too gives checkpoints that resume the
// original run: a job can be interrupted any number of times.
func TestResumeTwice(t *testing.T) {
	build := resumeCases["stateful"]
	want, cks := trackedRun(t, build(1))
	k1 := len(want) / 3
	rest, cks2 := trackedRun(t, build(2).Resume(cks[k1]))
	if !slices.Equal(rest, want[k1+1:]) {
		t.Fatal("first resume differs")
	}
	k2 := len(rest) / 2
	var got []flow.Item[int64]
	for it, err := range flow.Items[int64](context.Background(), build(4).Resume(cks2[k2])) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it)
	}
	if !slices.Equal(got, want[k1+1+k2+1:]) {
		t.Fatalf("second resume: %d items, want %d", len(got), len(want)-(k1+1+k2+1))
	}
}

// A run with a sink is followed too: the checkpoint after Run resumes to
// nothing, and one taken from a cancelled run resumes the rest.
func TestResumeRun(t *testing.T) {
	build := resumeCases["stateful"]
	want, _ := trackedRun(t, build(1))
	tr := new(flow.Tracker)
	var got []flow.Item[int64]
	n := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := build(2).Checkpoints(tr).To(sinks.ForEach(func(it flow.Item[int64]) error {
		got = append(got, it)
		if n++; n == 100 {
			cancel()
			return context.Canceled
		}
		return nil
	})).Run(ctx)
	if err == nil {
		t.Fatal("the cancelled run reported no error")
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	// The sink's chunk that failed is not delivered: the checkpoint is at a
	// chunk boundary at or before item 100.
	f := flow.FieldsOf(ck)
	done := int(f.Delivered)
	for _, it := range want {
		if it.Part < f.Part {
			done++
		}
	}
	if done > 100 || !slices.Equal(got[:done], want[:done]) {
		t.Fatalf("checkpoint %+v counts %d delivered items of the 100 consumed", ck, done)
	}
	var rest []flow.Item[int64]
	collect := sinks.ForEach(func(it flow.Item[int64]) error {
		rest = append(rest, it)
		return nil
	})
	if err := build(3).Resume(ck).To(collect).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rest, want[done:]) {
		t.Fatalf("the rest after Run: %d items, want %d", len(rest), len(want)-done)
	}
}

// TestResumeRefusesAnotherPipeline: a checkpoint resumes only its own
// pipeline, and the refusal names the first part that differs: the seed,
// the rank, a stage's settings.
func TestResumeRefusesAnotherPipeline(t *testing.T) {
	build := resumeCases["stateful"]
	_, cks := trackedRun(t, build(1))
	ck := cks[10]
	for _, c := range []struct {
		name string
		p    *flow.Pipeline
		want string
	}{
		{"another seed", build(1).WithSeed(10), "its seed is 9, this pipeline's 10"},
		{"another rank", build(1).WithRank(1, 2), "this pipeline has rank 1 of 2, the checkpoint's has none"},
		{"another stage", build(1).Via(operators.Map(func(v int64) (int64, error) { return v, nil })), "this pipeline has stage 6 map (int64 → int64), the checkpoint's has none"},
		{"other settings", otherPartitions(), "its source, slice (int64), has other settings"},
		{"the same pipeline", build(2), ""},
		{"another definition", resumeCases["stateless"](1), "another pipeline: "},
	} {
		for _, err := range flow.Items[int64](context.Background(), c.p.Resume(ck)) {
			if c.want == "" {
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
				}
				break
			}
			if err == nil || !strings.Contains(err.Error(), "taken from another pipeline: "+strings.TrimPrefix(c.want, "another pipeline: ")) || !strings.Contains(err.Error(), flow.FieldsOf(ck).Fingerprint) {
				t.Errorf("%s: %v, want a refusal saying %q and naming the checkpoint's fingerprint", c.name, err, c.want)
			}
			break
		}
	}
}

func TestCheckpointEncoding(t *testing.T) {
	ck := flow.MakeCheckpoint(flow.CheckpointFields{Fingerprint: strings.Repeat("ab", 16), Part: epoch.Part(2, 5), Delivered: 7,
		Stages: []flow.StageState{{Position: 2, Out: flow.Mark{Part: 6, Row: 3}, In: flow.Mark{Part: 4, Row: 1}, State: json.RawMessage(`{"a":1}`)}, {Position: 3, Out: flow.Mark{Part: -9223372036854775808}, In: flow.Mark{Part: -9223372036854775808}}}},
		[]string{"seed\t9\t0a1b2c3d", "stage 2\tbatch (int → operators.Rows[int])\t4e5f6a7b"})
	js, err := json.Marshal(ck)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"version":4,"fingerprint":"abababababababababababababababab","part":8589934597,"delivered":7,"stages":[{"position":2,"out":{"part":6,"row":3},"in":{"part":4,"row":1},"state":{"a":1}},{"position":3,"out":{"part":-9223372036854775808,"row":0},"in":{"part":-9223372036854775808,"row":0},"state":null}],"definition":["seed\t9\t0a1b2c3d","stage 2\tbatch (int → operators.Rows[int])\t4e5f6a7b"],"checksum":"58e994a8"}`
	if string(js) != want {
		t.Fatalf("JSON\n%s\nwant\n%s", js, want)
	}
	var back flow.Checkpoint
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if js2, _ := json.Marshal(back); string(js2) != want {
		t.Fatalf("JSON round trip: %s", js2)
	}
	if err := json.Unmarshal(js[:len(js)-1], &back); err == nil {
		t.Error("a truncated checkpoint was accepted")
	}
	var v2 flow.Checkpoint
	if err := json.Unmarshal([]byte(strings.Replace(want, `"version":4`, `"version":2`, 1)), &v2); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2 JSON: %v", err)
	}
	// A version 3 checkpoint (before cursor sets had positions), intact
	// with its checksum, is refused by its version.
	const v3 = `{"version":3,"fingerprint":"abababababababababababababababab","part":8589934597,"delivered":7,"stages":[{"position":2,"out":{"part":6,"row":3},"in":{"part":4,"row":1},"state":{"a":1}},{"position":3,"out":{"part":-9223372036854775808,"row":0},"in":{"part":-9223372036854775808,"row":0},"state":null}],"definition":["seed\t9\t0a1b2c3d","stage 2\tbatch (int → operators.Rows[int])\t4e5f6a7b"],"checksum":"4741e94d"}`
	if err := json.Unmarshal([]byte(v3), &v2); err == nil || !strings.Contains(err.Error(), "checkpoint version 3: this build reads version 4") {
		t.Errorf("version 3 JSON: %v", err)
	}
	if ck.Epoch() != 2 {
		t.Errorf("Epoch() = %d", ck.Epoch())
	}
}

// TestAtEncoding: a position made by At survives its JSON encoding, and
// the zero Checkpoint is refused by it and by Resume.
func TestAtEncoding(t *testing.T) {
	at := flow.At(2, 5)
	js, err := json.Marshal(at)
	if err != nil {
		t.Fatal(err)
	}
	var back flow.Checkpoint
	if err := json.Unmarshal(js, &back); err != nil || back.Epoch() != 2 {
		t.Fatalf("JSON round trip of %s: epoch %d, %v", js, back.Epoch(), err)
	}
	if js2, _ := json.Marshal(back); string(js2) != string(js) {
		t.Fatalf("JSON round trip: %s, want %s", js2, js)
	}
	var zero flow.Checkpoint
	if _, err := json.Marshal(zero); err == nil || !strings.Contains(err.Error(), "zero Checkpoint") {
		t.Errorf("JSON of the zero Checkpoint: %v", err)
	}
	p := flow.From(sources.Slice([]int{1, 2, 3}))
	if err := p.Resume(zero).Err(); err == nil || !strings.Contains(err.Error(), "zero Checkpoint is not a position") {
		t.Errorf("Resume of the zero Checkpoint: %v", err)
	}
	if err := p.Resume(flow.At(-1, 0)).Err(); err == nil || !strings.Contains(err.Error(), "need 0 <= epoch") {
		t.Errorf("Resume(At(-1, 0)): %v", err)
	}
}

func TestCheckpointRefusesUnordered(t *testing.T) {
	tr := new(flow.Tracker)
	p := resumeCases["stateless"](2).Unordered().Checkpoints(tr)
	for _, err := range flow.Items[int64](context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if _, err := tr.Checkpoint(); err == nil || !strings.Contains(err.Error(), "Unordered") {
		t.Fatalf("a checkpoint of an Unordered run: %v", err)
	}
}
