package operators_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
)

// stat is what the reductions in these tests fold rows into.
type stat struct {
	Sum   int64
	Count int
	Key   int64
}

func addStat(acc stat, v int64) (stat, error) {
	return stat{Sum: acc.Sum + v, Count: acc.Count + 1, Key: v / 37}, nil
}

// reduceSerial folds vals in plain Go: a group ends where cut says.
func reduceSerial(vals []int64, ids []rowid.ID, per int, cut func(i int) bool, dropShort int) []flow.Item[stat] {
	var items []flow.Item[stat]
	for lo := 0; lo < len(vals); {
		hi := lo + 1
		for hi < len(vals) && !cut(hi) {
			hi++
		}
		if dropShort > 0 && hi-lo < dropShort {
			break
		}
		var s stat
		for _, v := range vals[lo:hi] {
			s, _ = addStat(s, v)
		}
		items = append(items, flow.Item[stat]{Part: int64(len(items) / per), ID: foldIDs("reduce", ids[lo:hi]), Value: s})
		lo = hi
	}
	return items
}

func TestReduceEvery(t *testing.T) {
	const rows = 3000
	vals, ids := kept(rows)
	for _, n := range []int{1, 5, 64, 10000} {
		for _, last := range []remainder{keepRemainder, dropRemainder} {
			t.Run(fmt.Sprintf("%d/%v", n, last), func(t *testing.T) {
				drop := 0
				if last == dropRemainder {
					drop = n
				}
				want := reduceSerial(vals, ids, 8, func(i int) bool { return i%n == 0 }, drop)
				shapeVariants(t, want, func(p int) *flow.Pipeline {
					return flow.From(source(rows, 50, 16)).
						Via(operators.Filter(keep)).Parallel(p).
						Via(operators.ReduceEvery(n, addStat, withRemainder[operators.ReduceOption](last, operators.PartitionItems(8))...))
				})
			})
		}
	}
}

func TestReduceRuns(t *testing.T) {
	const rows = 3000
	vals, ids := kept(rows)
	want := reduceSerial(vals, ids, 1024, func(i int) bool { return vals[i]/37 != vals[i-1]/37 }, 0)
	shapeVariants(t, want, func(p int) *flow.Pipeline {
		return flow.From(source(rows, 50, 16)).
			Via(operators.Filter(keep)).Parallel(p).
			Via(operators.ReduceRuns(func(v int64) int64 { return v / 37 }, addStat))
	})
}

func TestReduceErrors(t *testing.T) {
	boom := errors.New("boom")
	p := flow.From(source(100, 10, 10)).Via(operators.ReduceEvery(4, func(acc int, v int64) (int, error) {
		if v == 42 {
			return 0, boom
		}
		return acc + 1, nil
	}))
	var err error
	for _, err = range flow.Items[int](t.Context(), p) {
	}
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), sourceID(42).String()) {
		t.Errorf("error %v: want boom naming row 42", err)
	}
	for name, s := range map[string]flow.Stage{
		"size 0":    operators.ReduceEvery(0, addStat),
		"runs last": operators.ReduceRuns(func(v int64) int64 { return v }, addStat, operators.DropRemainder()),
	} {
		for _, err := range flow.Items[stat](t.Context(), flow.From(source(10, 5, 5)).Via(s)) {
			if err == nil {
				t.Fatalf("%s: the run gave an item", name)
			}
		}
	}
	// A reduction has nothing to pad with: PadRemainder is no ReduceOption,
	// not even through a type assertion of its value.
	if o, ok := any(operators.PadRemainder()).(operators.ReduceOption); ok {
		t.Errorf("PadRemainder's value %T is a ReduceOption", o)
	}
}
