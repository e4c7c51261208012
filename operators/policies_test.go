package operators_test

import (
	"fmt"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// The tests range over the policies of the regrouping stages, the
// combinations and EvenRanks: each family's default, which takes no
// option, and the options that change it. These values name them.

// remainder is what a stage does with its last, partly filled batch:
// keep it (the default), DropRemainder or PadRemainder.
type remainder int

const (
	keepRemainder remainder = iota
	dropRemainder
	padRemainder
)

func (r remainder) String() string {
	return [...]string{"default", "DropRemainder", "PadRemainder"}[r]
}

// withRemainder returns opts with the option that sets r, if r is not the
// default. O is the option type of the stage, which the option implements.
func withRemainder[O any](r remainder, opts ...O) []O {
	switch r {
	case dropRemainder:
		return append(opts, any(operators.DropRemainder()).(O))
	case padRemainder:
		return append(opts, any(operators.PadRemainder()).(O))
	}
	return opts
}

// exhausted is what a combination does when an input runs out: drop it
// (the default), StopExhausted or CycleExhausted.
type exhausted int

const (
	dropExhausted exhausted = iota
	stopExhausted
	cycleExhausted
)

func (e exhausted) String() string {
	return [...]string{"default", "StopExhausted", "CycleExhausted"}[e]
}

// withExhausted returns opts with the option that sets e, if e is not the
// default.
func withExhausted(e exhausted, opts ...operators.CombineOption) []operators.CombineOption {
	switch e {
	case stopExhausted:
		return append(opts, operators.StopExhausted())
	case cycleExhausted:
		return append(opts, operators.CycleExhausted())
	}
	return opts
}

// overlong is what Pack does with a sequence longer than a row: split it
// (the default) or DropOverlong.
type overlong int

const (
	splitOverlong overlong = iota
	dropOverlong
)

func (o overlong) String() string { return [...]string{"default", "DropOverlong"}[o] }

// withOverlong returns opts with the option that sets o, if o is not the
// default.
func withOverlong(o overlong, opts ...operators.PackOption) []operators.PackOption {
	if o == dropOverlong {
		return append(opts, operators.DropOverlong())
	}
	return opts
}

// uneven is what EvenRanks does with rows that do not divide among the
// ranks: drop them (the default), PadUneven or AllowUneven.
type uneven int

const (
	dropUneven uneven = iota
	padUneven
	allowUneven
)

func (u uneven) String() string { return [...]string{"default", "PadUneven", "AllowUneven"}[u] }

// evenOptions returns the options of EvenRanks that set u.
func evenOptions(u uneven) []operators.EvenOption {
	switch u {
	case padUneven:
		return []operators.EvenOption{operators.PadUneven()}
	case allowUneven:
		return []operators.EvenOption{operators.AllowUneven()}
	}
	return nil
}

// Of two options of one policy family, the last one given wins: the run
// is the run with that option alone.
func TestLastPolicyOptionWins(t *testing.T) {
	nums := make([]int64, 11)
	for i := range nums {
		nums[i] = int64(i)
	}
	from := func() *flow.Pipeline { return flow.From(sources.Slice(nums, sources.PartitionItems(4))) }
	sameRun[operators.Rows[int64]](t, "Batch pad, drop", from().Via(operators.Batch[int64](3, operators.PadRemainder(), operators.DropRemainder())),
		from().Via(operators.Batch[int64](3, operators.DropRemainder())))
	sameRun[operators.Rows[int64]](t, "Batch drop, pad", from().Via(operators.Batch[int64](3, operators.DropRemainder(), operators.PadRemainder())),
		from().Via(operators.Batch[int64](3, operators.PadRemainder())))
	inputs := func() []*flow.Pipeline { return combineInputs(1, 5, 20) }
	sameRun[int64](t, "Interleave stop, cycle", flow.From(operators.Interleave[int64](inputs(), 2, 3, operators.StopExhausted(), operators.CycleExhausted())),
		flow.From(operators.Interleave[int64](inputs(), 2, 3, operators.CycleExhausted())))
	sameRun[int64](t, "Interleave cycle, stop", flow.From(operators.Interleave[int64](inputs(), 2, 3, operators.CycleExhausted(), operators.StopExhausted())),
		flow.From(operators.Interleave[int64](inputs(), 2, 3, operators.StopExhausted())))
	even := func(opts ...operators.EvenOption) *flow.Pipeline {
		return flow.From(operators.EvenRanks(sources.Slice(nums, sources.PartitionItems(4)), nil, opts...)).WithRank(2, 3)
	}
	sameRun[int64](t, "EvenRanks allow, pad", even(operators.AllowUneven(), operators.PadUneven()), even(operators.PadUneven()))
	sameRun[int64](t, "EvenRanks pad, allow", even(operators.PadUneven(), operators.AllowUneven()), even(operators.AllowUneven()))
}

// sameRun checks that a and b have one fingerprint and give the same
// items.
func sameRun[T any](t *testing.T, name string, a, b *flow.Pipeline) {
	t.Helper()
	if fa, fb := a.Fingerprint(), b.Fingerprint(); fa != fb {
		t.Errorf("%s: fingerprints %s and %s", name, fa, fb)
	}
	got, want := collect[T](t, a), collect[T](t, b)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: items\n%v\nwant\n%v", name, got, want)
	}
}
