package operators_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/rowflow/rowflow/flow"
)

// The resume matrix: an uninterrupted run taken with a tracker, whose
// checkpoint after every item resumes (at parallelism 1, 2, 4 and 8) to
// exactly the rest of the run, and whose run stopped (break) after item k
// gives a checkpoint that resumes alike.

var matrixPars = []int{1, 2, 4, 8}

type matrixOpts struct {
	stride int // resume from every stride-th checkpoint (1: all)
	stops  int // how many stop-at-k runs (spread evenly)
	min    int // fewest items the uninterrupted run must have
	before func()
	chain  int // for every resumed position, also resume the resumed run's first chain checkpoints
}

// matrixCollect runs p and returns its items, or the error.
func matrixCollect[T any](p *flow.Pipeline) ([]flow.Item[T], error) {
	var got []flow.Item[T]
	for it, err := range flow.Items[T](context.Background(), p) {
		if err != nil {
			return got, err
		}
		got = append(got, it)
	}
	return got, nil
}

func itemsEqual[T any](a, b []flow.Item[T]) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// firstDiff names where two item lists first differ.
func firstDiff[T any](got, want []flow.Item[T]) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("item %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d items, want %d", len(got), len(want))
}

// matrixResume checks the promise for build, whose argument is the
// parallelism.
func matrixResume[T any](t *testing.T, build func(par int) *flow.Pipeline, o matrixOpts) []flow.Item[T] {
	t.Helper()
	if o.stride < 1 {
		o.stride = 1
	}
	if o.before != nil {
		o.before()
	}
	tr := new(flow.Tracker)
	var want []flow.Item[T]
	var cks [][]byte
	for it, err := range flow.Items[T](context.Background(), build(1).Checkpoints(tr)) {
		if err != nil {
			t.Fatalf("uninterrupted run: %v", err)
		}
		want = append(want, it)
		ck, err := tr.Checkpoint()
		if err != nil {
			t.Fatalf("checkpoint after item %d: %v", len(want)-1, err)
		}
		b, err := json.Marshal(ck)
		if err != nil {
			t.Fatal(err)
		}
		cks = append(cks, b)
		// The JSON decodes to the same checkpoint.
		var back flow.Checkpoint
		err = json.Unmarshal(b, &back)
		var again []byte
		if err == nil {
			again, err = json.Marshal(back)
		}
		if err != nil || string(again) != string(b) {
			t.Fatalf("checkpoint after item %d: %s decodes to %s, %v", len(want)-1, b, again, err)
		}
	}
	if len(want) < o.min {
		t.Fatalf("only %d items", len(want))
	}
	for _, par := range matrixPars[1:] {
		if o.before != nil {
			o.before()
		}
		got, err := matrixCollect[T](build(par))
		if err != nil {
			t.Fatalf("parallelism %d: %v", par, err)
		}
		if !itemsEqual(got, want) {
			t.Fatalf("parallelism %d differs from 1: %s", par, firstDiff(got, want))
		}
	}
	resume := func(what string, k int, b []byte, par int) {
		t.Helper()
		var ck flow.Checkpoint
		if err := json.Unmarshal(b, &ck); err != nil {
			t.Fatal(err)
		}
		if o.before != nil {
			o.before()
		}
		got, err := matrixCollect[T](build(par).Resume(ck))
		if err != nil {
			t.Fatalf("%s after item %d of %d at parallelism %d: %v\ncheckpoint %s", what, k, len(want), par, err, b)
		}
		if !itemsEqual(got, want[k+1:]) {
			t.Fatalf("%s after item %d of %d at parallelism %d: %s\ncheckpoint %s", what, k, len(want), par, firstDiff(got, want[k+1:]), b)
		}
	}
	for k := 0; k < len(cks); k++ {
		if k%o.stride != 0 && k != len(cks)-1 && k != len(cks)-2 {
			continue
		}
		resume("resume", k, cks[k], matrixPars[(k/o.stride)%len(matrixPars)])
		if o.chain == 0 {
			continue
		}
		// The resumed run's own first checkpoints resume the original run.
		var ck flow.Checkpoint
		if err := json.Unmarshal(cks[k], &ck); err != nil {
			t.Fatal(err)
		}
		if o.before != nil {
			o.before()
		}
		tr2 := new(flow.Tracker)
		var chained [][]byte
		for _, err := range flow.Items[T](context.Background(), build(matrixPars[(k+1)%4]).Resume(ck).Checkpoints(tr2)) {
			if err != nil {
				t.Fatal(err)
			}
			ck2, err := tr2.Checkpoint()
			if err != nil {
				t.Fatalf("checkpoint of a resumed run: %v", err)
			}
			b2, _ := json.Marshal(ck2)
			chained = append(chained, b2)
			if len(chained) == o.chain {
				break
			}
		}
		for j, b2 := range chained {
			resume(fmt.Sprintf("resumed from item %d, its checkpoint", k), k+1+j, b2, matrixPars[(k+j+2)%4])
		}
	}
	// Stop at k (break), checkpoint, resume at another parallelism.
	if len(want) == 0 {
		o.stops = 0
	}
	for s := range o.stops {
		k := s * (len(want) - 1) / max(o.stops-1, 1)
		par := matrixPars[s%len(matrixPars)]
		if o.before != nil {
			o.before()
		}
		ck := matrixStopAfter[T](t, build(par), k)
		b, _ := json.Marshal(ck)
		resume(fmt.Sprintf("stopped at parallelism %d, resumed", par), k, b, matrixPars[(s+1)%len(matrixPars)])
		// And a resumed run's own checkpoint, taken halfway through its
		// rest, resumes the original run again.
		if rest := len(want) - k - 1; rest > 1 {
			h := rest / 2
			if o.before != nil {
				o.before()
			}
			ck2 := matrixStopAfter[T](t, build(matrixPars[(s+2)%4]).Resume(ck), h)
			b2, _ := json.Marshal(ck2)
			resume("a resumed run's checkpoint", k+1+h, b2, matrixPars[(s+3)%4])
		}
	}
	return want
}

// matrixStopAfter reads p with a tracker, leaves the loop after item k
// (counted from 0) and returns the tracker's checkpoint.
func matrixStopAfter[T any](t *testing.T, p *flow.Pipeline, k int) flow.Checkpoint {
	t.Helper()
	tr := new(flow.Tracker)
	n := 0
	for _, err := range flow.Items[T](context.Background(), p.Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		if n == k {
			break
		}
		n++
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatalf("stop after item %d: %v", k, err)
	}
	return ck
}
