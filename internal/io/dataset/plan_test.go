package dataset

import (
	"context"
	"errors"
	"fmt"
	ft "github.com/rowflow/rowflow/internal/filter/filtertest"
	"slices"
	"strings"
	"sync"
	"testing"
)

var ctx = context.Background()

// planOrder returns the window-0 fragments of h computed from its layout.
func (h hiveLayout) planOrder(ds *Dataset) []Fragment {
	var out []Fragment
	for i, f := range ds.Files() {
		var first int64
		for rg, n := range h.groups[f.RelPath] {
			out = append(out, Fragment{
				Index: int64(len(out)), Part: int64(len(out)), File: i, Path: f.RelPath,
				RowGroup: rg, From: 0, To: int64(n), FirstRow: first,
			})
			first += int64(n)
		}
	}
	return out
}

func TestPlanOrder(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	got := collectAll(t, mustPlan(t, ds, Config{}).Fragments(ctx, Position{}))
	want := h.planOrder(ds)
	if !slices.Equal(got, want) {
		t.Fatalf("plan order:\n got %v\nwant %v", got, want)
	}
	if len(want) != 36 {
		t.Fatalf("layout has %d fragments, want 36", len(want))
	}
}

func TestWholeFiles(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	got := collectAll(t, mustPlan(t, ds, Config{WholeFiles: true}).Fragments(ctx, Position{}))
	if len(got) != len(ds.Files()) {
		t.Fatalf("%d fragments, want %d", len(got), len(ds.Files()))
	}
	for i, f := range got {
		total := int64(0)
		for _, n := range h.groups[f.Path] {
			total += int64(n)
		}
		want := Fragment{Index: int64(i), Part: int64(i), File: i, Path: ds.Files()[i].RelPath, RowGroup: -1, To: total}
		if f != want {
			t.Errorf("fragment %d: %+v, want %+v", i, f, want)
		}
	}
}

// TestShufflesArePermutations checks that every window and mode yields the
// window-0 fragments, each once, and that the order is not the plan order.
func TestShufflesArePermutations(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	for _, whole := range []bool{false, true} {
		base := collectAll(t, mustPlan(t, ds, Config{WholeFiles: whole}).Fragments(ctx, Position{}))
		for _, w := range []int{-1, 1, 2, 5, 1000} {
			got := collectAll(t, mustPlan(t, ds, Config{WholeFiles: whole, Window: w, Seed: 7}).Fragments(ctx, Position{}))
			if !slices.Equal(sortedKeys(got), sortedKeys(base)) {
				t.Errorf("window %d: not a permutation of the plan order", w)
			}
			if slices.Equal(keys(got), keys(base)) {
				t.Errorf("window %d: order equals plan order", w)
			}
			for i, f := range got {
				if f.Index != int64(i) || f.Part != int64(i) {
					t.Errorf("window %d: fragment %d has index %d partition %d", w, i, f.Index, f.Part)
				}
			}
		}
	}
}

// TestWindowBoundsDisplacement checks the shuffle buffer's guarantee: a
// fragment comes out at most k-1 places before its place in the shuffled
// file order, which window 1 reproduces.
func TestWindowBoundsDisplacement(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	fileOrder := keys(collectAll(t, mustPlan(t, ds, Config{Window: 1, Seed: 3}).Fragments(ctx, Position{})))
	fed := make(map[key]int)
	for i, k := range fileOrder {
		fed[k] = i
	}
	for _, k := range []int{2, 4, 8} {
		got := collectAll(t, mustPlan(t, ds, Config{Window: k, Seed: 3}).Fragments(ctx, Position{}))
		for i, f := range got {
			if early := fed[keyOf(f)] - i; early > k-1 {
				t.Errorf("window %d: %v emitted %d places early", k, keyOf(f), early)
			}
		}
	}
	// Window 1 keeps each file's fragments together and in row order.
	for i := 1; i < len(fileOrder); i++ {
		a, b := fileOrder[i-1], fileOrder[i]
		if a.path == b.path && a.rowGroup >= b.rowGroup {
			t.Errorf("window 1: %v before %v", a, b)
		}
	}
}

func TestShuffleIsDeterministic(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	for _, w := range []int{-1, 3} {
		cfg := Config{Window: w, Seed: 42, Epochs: 3}
		first := mustPlan(t, ds, cfg)
		runs := [][]Fragment{
			collectAll(t, first.Epoch(ctx, 1)),
			collectAll(t, first.Epoch(ctx, 1)), // cached footers
			collectAll(t, mustPlan(t, ds, cfg).Epoch(ctx, 1)),
			collectAll(t, mustPlan(t, mustDiscover(t, h.root), cfg).Epoch(ctx, 1)),
		}
		for i, r := range runs[1:] {
			if !slices.Equal(r, runs[0]) {
				t.Errorf("window %d: run %d differs from run 0", w, i+1)
			}
		}
		epochs := [][]key{}
		for e := range int64(3) {
			epochs = append(epochs, keys(collectAll(t, first.Epoch(ctx, e))))
		}
		if slices.Equal(epochs[0], epochs[1]) || slices.Equal(epochs[1], epochs[2]) || slices.Equal(epochs[0], epochs[2]) {
			t.Errorf("window %d: two epochs have the same order", w)
		}
		other := keys(collectAll(t, mustPlan(t, ds, Config{Window: w, Seed: 43, Epochs: 3}).Epoch(ctx, 1)))
		if slices.Equal(other, epochs[1]) {
			t.Errorf("window %d: seeds 42 and 43 give the same order", w)
		}
	}
}

// TestWindowReadsFootersLazily checks that the first fragment of a windowed
// shuffle is known after reading just enough footers to fill the buffer.
func TestWindowReadsFootersLazily(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		writeParquet(t, root, fmt.Sprintf("part-%02d.parquet", i), 1, 1, 1)
	}
	ds := mustDiscover(t, root)
	for _, k := range []int{1, 3, 4, 9} {
		c := &counter{}
		p := mustPlan(t, ds, Config{Window: k, Metadata: c, Seed: 1})
		for range p.Fragments(ctx, Position{}) {
			break
		}
		// Each file holds 3 fragments; the buffer needs k.
		if want := (k + 2) / 3; c.count() != want {
			t.Errorf("window %d: %d footers read before the first fragment, want %d", k, c.count(), want)
		}
	}
	c := &counter{}
	for range mustPlan(t, ds, Config{Window: -1, Metadata: c}).Fragments(ctx, Position{}) {
		break
	}
	if c.count() != 40 {
		t.Errorf("global shuffle: %d footers read, want 40", c.count())
	}
	c = &counter{}
	for range mustPlan(t, ds, Config{Metadata: c}).Fragments(ctx, Position{}) {
		break
	}
	if c.count() != 1 {
		t.Errorf("plan order: %d footers read, want 1", c.count())
	}
}

func TestFootersReadOncePerPlan(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	c := &counter{}
	p := mustPlan(t, ds, Config{Window: 4, Epochs: 3, Metadata: c})
	collectAll(t, p.Fragments(ctx, Position{}))
	collectAll(t, p.Epoch(ctx, 2))
	if got, want := c.files(), h.relPaths(); !slices.Equal(got, want) {
		t.Errorf("footers read %q, want each once: %q", got, want)
	}
}

func TestEpochsAndBatches(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	p := mustPlan(t, ds, Config{Window: 5, Seed: 9, Epochs: 3})
	all := collectAll(t, p.Fragments(ctx, Position{}))
	if len(all) != 3*36 {
		t.Fatalf("%d fragments, want %d", len(all), 3*36)
	}
	for i, f := range all {
		e, j := int64(i/36), int64(i%36)
		if f.Epoch != e || f.Index != j || f.Part != e*EpochStride+j || BatchPosition(f.Part) != f.Position() {
			t.Errorf("fragment %d: epoch %d index %d partition %d", i, f.Epoch, f.Index, f.Part)
		}
		if i > 0 && f.Part <= all[i-1].Part {
			t.Errorf("fragment %d: partition %d after %d", i, f.Part, all[i-1].Part)
		}
	}
	for e := range int64(3) {
		if got := collectAll(t, p.Epoch(ctx, e)); !slices.Equal(got, all[e*36:(e+1)*36]) {
			t.Errorf("Epoch(%d) differs from the epoch in Fragments", e)
		}
	}
	for _, e := range []int64{-1, 3} {
		for _, err := range p.Epoch(ctx, e) {
			if err == nil || !strings.Contains(err.Error(), "out of range") {
				t.Errorf("Epoch(%d): error %v", e, err)
			}
		}
	}
}

func TestResumeFromPosition(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	for _, w := range []int{0, -1, 4} {
		p := mustPlan(t, ds, Config{Window: w, Seed: 5, Epochs: 3, Rank: 1, World: 3})
		all := collectAll(t, p.Fragments(ctx, Position{}))
		for _, pos := range []Position{{0, 0}, {0, 7}, {1, 0}, {1, 1}, {2, 35}, {2, 36}, {1, 100}, {3, 0}} {
			var want []Fragment
			for _, f := range all {
				if f.Part >= pos.Batch() {
					want = append(want, f)
				}
			}
			fresh := mustPlan(t, ds, Config{Window: w, Seed: 5, Epochs: 3, Rank: 1, World: 3})
			if got := collectAll(t, fresh.Fragments(ctx, pos)); !slices.Equal(got, want) {
				t.Errorf("window %d, from %+v: %d fragments, want %d", w, pos, len(got), len(want))
			}
		}
	}
	p := mustPlan(t, ds, Config{})
	for _, err := range p.Fragments(ctx, Position{Epoch: -1}) {
		if err == nil {
			t.Error("negative position accepted")
		}
	}
}

func TestForever(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	p := mustPlan(t, ds, Config{Epochs: -1, Window: 3})
	n := 0
	for f, err := range p.Fragments(ctx, Position{Epoch: 1000}) {
		if err != nil {
			t.Fatal(err)
		}
		if want := (Position{Epoch: 1000 + int64(n/36), Index: int64(n % 36)}); f.Position() != want {
			t.Fatalf("fragment %d at %+v, want %+v", n, f.Position(), want)
		}
		if n++; n == 100 {
			break
		}
	}
	if n != 100 {
		t.Fatalf("stopped after %d fragments", n)
	}
	// An empty plan ends even with Forever.
	empty := mustPlan(t, ds, Config{Epochs: -1, Where: ft.Eq("year", "1999")})
	if got := collectAll(t, empty.Fragments(ctx, Position{})); len(got) != 0 {
		t.Errorf("empty plan yielded %d fragments", len(got))
	}
}

func TestMetadataErrors(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	boom := errors.New("boom")
	fail := MetadataFunc(func(ctx context.Context, f File) ([]int64, error) {
		if f.RelPath == "year=2022/lang=en/part-1.parquet" {
			return nil, fmt.Errorf("%s: %w", f.RelPath, boom) // a Metadata's errors name the file
		}
		return ParquetFooters{}.RowGroups(ctx, f)
	})
	var got []Fragment
	var errs []error
	for f, err := range mustPlan(t, ds, Config{Metadata: fail}).Fragments(ctx, Position{}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, f)
	}
	if len(errs) != 1 || !errors.Is(errs[0], boom) || errs[0].Error() != "year=2022/lang=en/part-1.parquet: boom" {
		t.Fatalf("errors %v", errs)
	}
	if len(got) == 0 || got[len(got)-1].Path != "year=2022/lang=en/part-0.parquet" {
		t.Errorf("fragments before the error: %v", got)
	}

	writeFile(t, h.root, "year=2022/lang=en/part-2.parquet", "not parquet")
	ds = mustDiscover(t, h.root)
	for _, err := range mustPlan(t, ds, Config{Where: ft.Eq("year", "2022")}).Fragments(ctx, Position{}) {
		if err != nil {
			if !strings.Contains(err.Error(), "part-2.parquet") {
				t.Errorf("error %v does not name the file", err)
			}
			return
		}
	}
	t.Error("corrupt file not reported")
}

func TestCancelledContext(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	c, cancel := context.WithCancel(ctx)
	cancel()
	for _, err := range mustPlan(t, ds, Config{WholeFiles: true}).Fragments(c, Position{}) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	}
}

func TestNilDataset(t *testing.T) {
	if _, err := New(nil, Config{}); err == nil {
		t.Error("nil dataset accepted")
	}
}

// TestConcurrentIterations runs several iterations of one Plan at once;
// with -race it checks the footer cache.
func TestConcurrentIterations(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	p := mustPlan(t, ds, Config{Window: 4, Seed: 1, Epochs: 4})
	want := collectAll(t, mustPlan(t, ds, Config{Window: 4, Seed: 1, Epochs: 4}).Epoch(ctx, 2))
	results := make([][]Fragment, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			for f, err := range p.Epoch(ctx, 2) {
				if err != nil {
					t.Error(err)
					return
				}
				results[i] = append(results[i], f)
			}
		})
	}
	wg.Wait()
	for i, r := range results {
		if !slices.Equal(r, want) {
			t.Errorf("iteration %d differs", i)
		}
	}
}
